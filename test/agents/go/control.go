package main

import (
	"encoding/json"
	"io"
	"net/http"
)

// controlHandler mirrors test/agents/control-server.ts (the paths this runtime implements):
//
//	GET  /state                                      -> {"ports", "seen", "connections", "sni"}
//	POST /grpc  {"running": bool, "register"?: bool}  stop / (re)start the gRPC server
//	POST /http  {"mode": "a2a" | "error500"}
func (a *agent) controlHandler() http.Handler {
	reply := func(w http.ResponseWriter, status int, body any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(body)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/state" {
			a.mu.Lock()
			seen := append([]seenGetTask{}, a.seen...)
			calls := append([]string{}, a.calls...)
			sni := append([]*string{}, a.sni...)
			a.mu.Unlock()
			reply(w, 200, map[string]any{
				"ports": a.ports,
				"seen":  seen,
				"calls": calls,
				"sni":   sni,
				"connections": map[string]int64{
					"http":      a.connHTTP.Load(),
					"plain":     a.connPlain.Load(),
					"hang":      a.connHang.Load(),
					"h2garbage": 0,
				},
				"cardStreams": []any{},
			})
			return
		}
		if r.Method != http.MethodPost {
			reply(w, 405, map[string]string{"error": "method not allowed"})
			return
		}
		var body map[string]any
		raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &body); err != nil {
				reply(w, 400, map[string]string{"error": err.Error()})
				return
			}
		}
		switch r.URL.Path {
		case "/grpc":
			if a.grpcCfg == nil {
				reply(w, 400, map[string]string{"error": "no grpc listener"})
				return
			}
			a.stopGRPC()
			if running, ok := body["running"].(bool); !ok || running {
				register := a.grpcCfg.Register == nil || *a.grpcCfg.Register
				if v, ok := body["register"].(bool); ok {
					register = v
				}
				if err := a.startGRPC(register); err != nil {
					reply(w, 500, map[string]string{"error": err.Error()})
					return
				}
			}
			reply(w, 200, map[string]bool{"ok": true})
		case "/http":
			mode, _ := body["mode"].(string)
			if mode != "a2a" && mode != "error500" {
				reply(w, 400, map[string]string{"error": "unknown mode"})
				return
			}
			a.httpMode.Store(mode)
			reply(w, 200, map[string]bool{"ok": true})
		default:
			reply(w, 404, map[string]string{"error": "unknown control path"})
		}
	})
}
