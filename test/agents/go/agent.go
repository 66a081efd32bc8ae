package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"iter"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/a2aproject/a2a-go/v2/a2a"
	grpcv0 "github.com/a2aproject/a2a-go/v2/a2agrpc/v0"
	grpcv1 "github.com/a2aproject/a2a-go/v2/a2agrpc/v1"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
	"github.com/a2aproject/a2a-go/v2/a2asrv/push"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// Ports as agent-config.ts AgentPorts names them.
type Ports struct {
	HTTP    int `json:"http,omitempty"`
	GRPC    int `json:"grpc,omitempty"`
	Plain   int `json:"plain,omitempty"`
	Hang    int `json:"hang,omitempty"`
	Control int `json:"control,omitempty"`
}

type seenGetTask struct {
	Tenant string `json:"tenant"`
	ID     string `json:"id"`
}

type agent struct {
	cfg   *Config
	host  string
	ports Ports

	mu          sync.Mutex
	seen        []seenGetTask
	calls       []string
	sni         []*string
	httpMode    atomic.Value // string
	connHTTP    atomic.Int64
	connPlain   atomic.Int64
	connHang    atomic.Int64
	grpcCfg     *GRPCConfig
	grpcServer  *grpc.Server
	handler     a2asrv.RequestHandler
	closers     []func()
	grpcTLS     credentials.TransportCredentials
	grpcRunning bool
}

// echoExecutor answers every message with one agent message; GetTask never reaches it.
type echoExecutor struct{}

func (echoExecutor) Execute(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {
		yield(a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("ok")), nil)
	}
}

func (echoExecutor) Cancel(ctx context.Context, execCtx *a2asrv.ExecutorContext) iter.Seq2[a2a.Event, error] {
	return func(yield func(a2a.Event, error) bool) {}
}

// gate is the agent's CallInterceptor: records GetTask calls, then checks auth and tenant the way
// an a2a-go agent does (returning the SDK's sentinel errors, which each transport maps itself).
type gate struct {
	a2asrv.PassthroughCallInterceptor
	a *agent
}

func (g gate) Before(ctx context.Context, callCtx *a2asrv.CallContext, req *a2asrv.Request) (context.Context, any, error) {
	cfg := g.a.cfg
	g.a.mu.Lock()
	g.a.calls = append(g.a.calls, callCtx.Method())
	g.a.mu.Unlock()
	var tenant string
	getTask, isGetTask := req.Payload.(*a2a.GetTaskRequest)
	if isGetTask {
		tenant = getTask.Tenant
		if tenant == "" {
			tenant = callCtx.Tenant()
		}
		g.a.mu.Lock()
		g.a.seen = append(g.a.seen, seenGetTask{Tenant: tenant, ID: string(getTask.ID)})
		g.a.mu.Unlock()
	}
	if cfg.AuthToken != "" {
		var got string
		if v, ok := callCtx.ServiceParams().Get("authorization"); ok && len(v) > 0 {
			got = v[0]
		}
		switch {
		case cfg.AuthDeniedToken != "" && got == "Bearer "+cfg.AuthDeniedToken:
			return ctx, nil, a2a.ErrUnauthorized
		case got != "Bearer "+cfg.AuthToken:
			return ctx, nil, a2a.ErrUnauthenticated
		}
	}
	if isGetTask && cfg.RequireTenant != nil && tenant != *cfg.RequireTenant {
		return ctx, nil, a2a.NewError(a2a.ErrUnsupportedOperation, fmt.Sprintf("tenant %q is not served here", tenant))
	}
	return ctx, nil, nil
}

var placeholder = regexp.MustCompile(`\{\{([A-Z_]+)\}\}`)

func (a *agent) substitute(raw []byte) []byte {
	host := a.host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	vars := map[string]string{
		"HOST":       host,
		"HTTP_PORT":  portString(a.ports.HTTP),
		"GRPC_PORT":  portString(a.ports.GRPC),
		"PLAIN_PORT": portString(a.ports.Plain),
		"HANG_PORT":  portString(a.ports.Hang),
	}
	return placeholder.ReplaceAllFunc(raw, func(m []byte) []byte {
		if v, ok := vars[string(m[2:len(m)-2])]; ok {
			return []byte(v)
		}
		return m
	})
}

func portString(p int) string {
	if p == 0 {
		return ""
	}
	return strconv.Itoa(p)
}

func listenTCP(host string, port int) (net.Listener, int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return nil, 0, err
	}
	return l, l.Addr().(*net.TCPAddr).Port, nil
}

func startAgent(cfg *Config) (*agent, error) {
	a := &agent{cfg: cfg, host: cfg.Host}
	if a.host == "" {
		a.host = "127.0.0.1"
	}
	httpCfg, err := listener(cfg.HTTP, &HTTPConfig{})
	if err != nil {
		return nil, fmt.Errorf("http: %w", err)
	}
	grpcCfg, err := listener[GRPCConfig](cfg.GRPC, nil)
	if err != nil {
		return nil, fmt.Errorf("grpc: %w", err)
	}
	plainCfg, err := listener[PortConfig](cfg.Plain, nil)
	if err != nil {
		return nil, fmt.Errorf("plain: %w", err)
	}
	hangCfg, err := listener[PortConfig](cfg.Hang, nil)
	if err != nil {
		return nil, fmt.Errorf("hang: %w", err)
	}
	controlCfg, err := listener(cfg.ControlRaw, &PortConfig{})
	if err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	if httpCfg != nil && httpCfg.Mode != "" && httpCfg.Mode != "a2a" && httpCfg.Mode != "error500" {
		return nil, fmt.Errorf("http.mode %q is not implemented by the go agent", httpCfg.Mode)
	}
	a.httpMode.Store("a2a")
	if httpCfg != nil && httpCfg.Mode != "" {
		a.httpMode.Store(httpCfg.Mode)
	}

	if plainCfg != nil {
		l, port, err := listenTCP(a.host, plainCfg.Port)
		if err != nil {
			return nil, err
		}
		a.ports.Plain = port
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html")
				_, _ = w.Write([]byte("<html><body>not an agent</body></html>"))
			}),
			ConnState: countNew(&a.connPlain),
		}
		go func() { _ = srv.Serve(l) }()
		a.closers = append(a.closers, func() { _ = srv.Close() })
	}
	if hangCfg != nil {
		l, port, err := listenTCP(a.host, hangCfg.Port)
		if err != nil {
			return nil, err
		}
		a.ports.Hang = port
		go hangForever(l, &a.connHang)
		a.closers = append(a.closers, func() { _ = l.Close() })
	}

	var httpListener net.Listener
	if httpCfg != nil {
		l, port, err := listenTCP(a.host, httpCfg.Port)
		if err != nil {
			return nil, err
		}
		a.ports.HTTP = port
		httpListener = l
	}
	if grpcCfg != nil {
		// Bind once to learn the port the card names, then serve on that port.
		l, port, err := listenTCP(a.host, grpcCfg.Port)
		if err != nil {
			return nil, err
		}
		_ = l.Close()
		a.ports.GRPC = port
	}

	interfaces, err := a.interfaces(httpCfg, grpcCfg)
	if err != nil {
		return nil, err
	}
	card := &a2a.AgentCard{
		Name:                "test-agent",
		Description:         "A2A test agent (official Go SDK)",
		Version:             "1.0.0",
		SupportedInterfaces: interfaces,
		Capabilities:        declaredCapabilities(cfg.Capabilities),
		DefaultInputModes:   []string{"text/plain"},
		DefaultOutputModes:  []string{"text/plain"},
		Skills:              []a2a.AgentSkill{},
	}
	served := servedCapabilities(card.Capabilities, cfg.ServedCapabilities)
	opts := []a2asrv.RequestHandlerOption{
		a2asrv.WithCallInterceptors(gate{a: a}),
		// The SDK's own checks: streaming, push and extended card as served, required extensions
		// on every call (ExtensionSupportRequired when A2A-Extensions lacks one).
		a2asrv.WithCapabilityChecks(&served),
	}
	if served.PushNotifications {
		opts = append(opts, a2asrv.WithPushNotifications(push.NewInMemoryStore(), push.NewHTTPPushSender(nil)))
	}
	if served.ExtendedAgentCard {
		opts = append(opts, a2asrv.WithExtendedAgentCard(card))
	}
	a.handler = a2asrv.NewHandler(echoExecutor{}, opts...)

	if grpcCfg != nil {
		a.grpcCfg = grpcCfg
		if grpcCfg.TLS != nil {
			cert, err := tls.X509KeyPair([]byte(grpcCfg.TLS.Cert), []byte(grpcCfg.TLS.Key))
			if err != nil {
				return nil, fmt.Errorf("grpc tls: %w", err)
			}
			a.grpcTLS = credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})
		}
		register := grpcCfg.Register == nil || *grpcCfg.Register
		if err := a.startGRPC(register); err != nil {
			return nil, err
		}
		a.closers = append(a.closers, a.stopGRPC)
	}

	if httpCfg != nil {
		mux, err := a.httpMux(httpCfg, card)
		if err != nil {
			return nil, err
		}
		srv := &http.Server{Handler: mux, ConnState: countNew(&a.connHTTP)}
		l := httpListener
		if httpCfg.TLS != nil {
			cert, err := tls.X509KeyPair([]byte(httpCfg.TLS.Cert), []byte(httpCfg.TLS.Key))
			if err != nil {
				return nil, fmt.Errorf("http tls: %w", err)
			}
			// net/http's own TLS serving, as an a2a-go agent would run: it offers h2 and http/1.1
			// by ALPN (the JS agent's node:https offers http/1.1 only).
			srv.TLSConfig = &tls.Config{
				Certificates: []tls.Certificate{cert},
				GetConfigForClient: func(hello *tls.ClientHelloInfo) (*tls.Config, error) {
					a.mu.Lock()
					defer a.mu.Unlock()
					if hello.ServerName == "" {
						a.sni = append(a.sni, nil)
					} else {
						name := hello.ServerName
						a.sni = append(a.sni, &name)
					}
					return nil, nil
				},
			}
			go func() { _ = srv.ServeTLS(l, "", "") }()
		} else {
			go func() { _ = srv.Serve(l) }()
		}
		a.closers = append(a.closers, func() { _ = srv.Close() })
	}

	if controlCfg != nil {
		l, port, err := listenTCP(a.host, controlCfg.Port)
		if err != nil {
			return nil, err
		}
		a.ports.Control = port
		srv := &http.Server{Handler: a.controlHandler()}
		go func() { _ = srv.Serve(l) }()
		a.closers = append([]func(){func() { _ = srv.Close() }}, a.closers...)
	}
	return a, nil
}

// interfaces: the configured ones (placeholders replaced) or the defaults of start-agent.ts,
// plus 0.3 mirrors when the compat layer is on.
func (a *agent) interfaces(httpCfg *HTTPConfig, grpcCfg *GRPCConfig) ([]*a2a.AgentInterface, error) {
	decl := a.cfg.Interfaces
	if decl == nil {
		if httpCfg != nil {
			scheme := "http"
			if httpCfg.TLS != nil {
				scheme = "https"
			}
			rpc, _ := mountPath(httpCfg.JSONRPCPath, "/a2a/jsonrpc")
			rest, _ := mountPath(httpCfg.RESTPath, "/a2a/rest")
			if rpc != "" {
				decl = append(decl, Interface{URL: scheme + "://{{HOST}}:{{HTTP_PORT}}" + rpc, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"})
			}
			if rest != "" {
				decl = append(decl, Interface{URL: scheme + "://{{HOST}}:{{HTTP_PORT}}" + rest, ProtocolBinding: "HTTP+JSON", ProtocolVersion: "1.0"})
			}
		}
		if grpcCfg != nil {
			scheme := "http"
			if grpcCfg.TLS != nil {
				scheme = "https"
			}
			decl = append(decl, Interface{URL: scheme + "://{{HOST}}:{{GRPC_PORT}}", ProtocolBinding: "GRPC", ProtocolVersion: "1.0"})
		}
	}
	raw, _ := json.Marshal(decl)
	var out []Interface
	if err := json.Unmarshal(a.substitute(raw), &out); err != nil {
		return nil, err
	}
	if a.cfg.LegacyCompat {
		for _, i := range out {
			if i.ProtocolVersion != "1.0" {
				continue
			}
			has := false
			for _, j := range out {
				has = has || (j.ProtocolBinding == i.ProtocolBinding && j.ProtocolVersion == "0.3")
			}
			if !has {
				m := i
				m.ProtocolVersion = "0.3"
				out = append(out, m)
			}
		}
	}
	res := make([]*a2a.AgentInterface, 0, len(out))
	for _, i := range out {
		res = append(res, &a2a.AgentInterface{
			URL:             i.URL,
			ProtocolBinding: a2a.TransportProtocol(i.ProtocolBinding),
			ProtocolVersion: a2a.ProtocolVersion(i.ProtocolVersion),
			Tenant:          i.Tenant,
		})
	}
	return res, nil
}

func countNew(n *atomic.Int64) func(net.Conn, http.ConnState) {
	return func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			n.Add(1)
		}
	}
}

func hangForever(l net.Listener, n *atomic.Int64) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		// Read and discard so the peer's writes never block; never answer.
		go func() {
			buf := make([]byte, 4096)
			for {
				if _, err := c.Read(buf); err != nil {
					_ = c.Close()
					return
				}
			}
		}()
	}
}

func (a *agent) startGRPC(register bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.grpcRunning {
		return nil
	}
	l, _, err := listenTCP(a.host, a.ports.GRPC)
	if err != nil {
		return err
	}
	var opts []grpc.ServerOption
	if a.grpcTLS != nil {
		opts = append(opts, grpc.Creds(a.grpcTLS))
	}
	s := grpc.NewServer(opts...)
	if register {
		grpcv1.NewHandler(a.handler).RegisterWith(s)
		if a.cfg.LegacyCompat {
			// a.v1.A2AService: the v0.3 service name, served by the SDK's compat handler.
			grpcv0.NewHandler(a.handler).RegisterWith(s)
		}
	}
	go func() { _ = s.Serve(l) }()
	a.grpcServer = s
	a.grpcRunning = true
	return nil
}

func (a *agent) stopGRPC() {
	a.mu.Lock()
	s := a.grpcServer
	a.grpcServer = nil
	a.grpcRunning = false
	a.mu.Unlock()
	if s != nil {
		s.Stop()
	}
}

func (a *agent) close() {
	for _, c := range a.closers {
		c()
	}
}

// declaredCapabilities: what the card claims (all false when the config says nothing).
func declaredCapabilities(c *Capabilities) a2a.AgentCapabilities {
	if c == nil {
		return a2a.AgentCapabilities{}
	}
	out := a2a.AgentCapabilities{
		Streaming:         c.Streaming,
		PushNotifications: c.PushNotifications,
		ExtendedAgentCard: c.ExtendedAgentCard,
	}
	for _, e := range c.Extensions {
		out.Extensions = append(out.Extensions, a2a.AgentExtension{URI: e.URI, Required: e.Required})
	}
	return out
}

// servedCapabilities: the card's claims, overridden where the config makes the card lie.
func servedCapabilities(declared a2a.AgentCapabilities, s *Served) a2a.AgentCapabilities {
	out := declared
	if s == nil {
		return out
	}
	if s.Streaming != nil {
		out.Streaming = *s.Streaming
	}
	if s.PushNotifications != nil {
		out.PushNotifications = *s.PushNotifications
	}
	if s.ExtendedAgentCard != nil {
		out.ExtendedAgentCard = *s.ExtendedAgentCard
	}
	return out
}
