// Command go-agent is the second runtime of the test suite: a real A2A agent on the official Go
// SDK (github.com/a2aproject/a2a-go/v2), driven by the same JSON config and READY-line contract
// as test/agents/agent-server.ts:
//
//	go-agent '<AgentConfig json>'  ->  prints `READY {"ports":{...}}` once every listener is bound
//
// Everything A2A on the wire is the SDK's own: its JSON-RPC, REST and gRPC handlers, its v0.3
// compatibility layer (a2acompat/a2av0, a2agrpc/v0) and its error mapping. Auth and tenant
// checks are an SDK CallInterceptor, which is how an a2a-go agent does them, so an auth failure
// answers the way a2a-go agents do (JSON-RPC HTTP 200 + -31401, REST 401, gRPC UNAUTHENTICATED).
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	raw := "{}"
	if len(os.Args) > 1 {
		raw = os.Args[1]
	}
	var cfg Config
	dec := json.NewDecoder(stringsReader(raw))
	// A field this runtime does not implement must fail loudly, not be silently ignored.
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		fmt.Fprintf(os.Stderr, "go-agent: bad config: %v\n", err)
		os.Exit(2)
	}
	agent, err := startAgent(&cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-agent: %v\n", err)
		os.Exit(2)
	}
	line, _ := json.Marshal(map[string]any{"ports": agent.ports})
	fmt.Printf("READY %s\n", line)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	if os.Getenv("GO_AGENT_EXIT_ON_STDIN_EOF") == "1" {
		// Started as a test's child on loopback: leave with the test process, even if it is killed.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			sig <- syscall.SIGTERM
		}()
	}
	<-sig
	agent.close()
	os.Exit(0)
}
