package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2acompat/a2av0"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// httpMux: the card at the well-known path, the SDK's JSON-RPC handler at jsonrpcPath and its
// REST handler under restPath (either unmounted when null), as start-agent.ts lays them out.
func (a *agent) httpMux(cfg *HTTPConfig, card *a2a.AgentCard) (http.Handler, error) {
	rpcPath, err := mountPath(cfg.JSONRPCPath, "/a2a/jsonrpc")
	if err != nil {
		return nil, err
	}
	restPath, err := mountPath(cfg.RESTPath, "/a2a/rest")
	if err != nil {
		return nil, err
	}
	cardHandler, err := a.cardHandler(card)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle(a2asrv.WellKnownAgentCardPath, cardHandler)

	if rpcPath != "" {
		v1 := a2asrv.NewJSONRPCHandler(a.handler)
		var rpc http.Handler = v1
		if a.cfg.LegacyCompat {
			rpc = byVersion(v1, a2av0.NewJSONRPCHandler(a.handler))
		}
		mux.Handle(rpcPath, a.failing(rpc, jsonrpc500))
	}
	if restPath != "" {
		var v1 = a2asrv.NewRESTHandler(a.handler)
		if a.cfg.RequireTenant != nil {
			// Only in tenant mode: with "/{*}" mounted, `/v1/tasks/{id}` (a v0.3 REST GetTask) is
			// also a v1.0 GetTask for tenant "v1", and a2a-go would answer it TaskNotFound.
			v1 = restWithTenant(v1, a2asrv.NewTenantRESTHandler("/{*}", a.handler))
		}
		var rest http.Handler = v1
		if a.cfg.LegacyCompat {
			// The SDK's v0.3 REST handler serves the unprefixed v1.0 paths (/tasks/{id}), not the
			// /v1/tasks/{id} that v0.3 §3.5.6 names: mounted as the SDK ships it.
			rest = byVersion(v1, a2av0.NewRESTHandler(a.handler))
		}
		prefix := strings.TrimSuffix(restPath, "/")
		mux.Handle(prefix+"/", a.failing(http.StripPrefix(prefix, rest), rest500))
	}
	return mux, nil
}

func (a *agent) cardHandler(card *a2a.AgentCard) (http.Handler, error) {
	serve := "sdk"
	if a.cfg.Card != nil && a.cfg.Card.Serve != "" {
		serve = a.cfg.Card.Serve
	}
	switch serve {
	case "sdk":
		if a.cfg.LegacyCompat {
			// a2a-go's way to serve v0.3 clients: the compat producer's union (v1.0 + v0.3) card.
			return a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)), nil
		}
		return a2asrv.NewStaticAgentCardHandler(card), nil
	case "hybrid":
		return a2asrv.NewAgentCardHandler(a2av0.NewStaticAgentCardProducer(card)), nil
	case "json":
		body := a.substitute(a.cfg.Card.JSON)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(body)
		}), nil
	default:
		return nil, fmt.Errorf("card.serve %q is not implemented by the go agent", serve)
	}
}

// byVersion sends requests without A2A-Version (v0.3 per spec §3.6.2) or with 0.3 to the SDK's
// compat handler, everything else to its v1.0 handler: a2a-go serves one version per handler.
func byVersion(v1, v0 http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := strings.TrimSpace(r.Header.Get(a2a.SvcParamVersion))
		if v == "" || v == "0.3" || strings.HasPrefix(v, "0.3.") {
			v0.ServeHTTP(w, r)
			return
		}
		v1.ServeHTTP(w, r)
	})
}

// restWithTenant: the SDK's REST routes at the root, and the same routes under a /{tenant}
// prefix (its NewTenantRESTHandler), as the v1.0 proto's additional_bindings lay them out.
func restWithTenant(plain, tenant http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.HasPrefix(p, "/tasks") || strings.HasPrefix(p, "/message:") || strings.HasPrefix(p, "/extendedAgentCard") {
			plain.ServeHTTP(w, r)
			return
		}
		tenant.ServeHTTP(w, r)
	})
}

// failing answers 500 with the binding's internal-error body while the agent is in error500 mode.
func (a *agent) failing(next http.Handler, body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.httpMode.Load() == "error500" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(body))
			return
		}
		next.ServeHTTP(w, r)
	})
}

const jsonrpc500 = `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}`
const rest500 = `{"error":{"code":500,"status":"INTERNAL","message":"internal error"}}`
