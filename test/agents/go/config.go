package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Config mirrors AgentConfig of test/agents/agent-config.ts (the subset this runtime implements;
// an unknown field is a startup error). Listener fields take an object, or false for "off".
type Config struct {
	Host          string          `json:"host"`
	HTTP          json.RawMessage `json:"http"`
	GRPC          json.RawMessage `json:"grpc"`
	Plain         json.RawMessage `json:"plain"`
	Hang          json.RawMessage `json:"hang"`
	ControlRaw    json.RawMessage `json:"control"`
	Interfaces    []Interface     `json:"interfaces"`
	LegacyCompat  bool            `json:"legacyCompat"`
	Card          *CardConfig     `json:"card"`
	AuthToken     string          `json:"authToken"`
	RequireTenant *string         `json:"requireTenant"`
	// Go-only: a token that authenticates but is not allowed (ErrUnauthorized: JSON-RPC -31403,
	// REST 403, gRPC PERMISSION_DENIED), so the permission-denied shape comes from a real server.
	AuthDeniedToken string `json:"authDeniedToken"`
	// What the card claims, and (when it differs: a lying card) what the handler serves.
	Capabilities       *Capabilities `json:"capabilities"`
	ServedCapabilities *Served       `json:"servedCapabilities"`
}

type Extension struct {
	URI      string `json:"uri"`
	Required bool   `json:"required"`
}

type Capabilities struct {
	Streaming         bool        `json:"streaming"`
	PushNotifications bool        `json:"pushNotifications"`
	ExtendedAgentCard bool        `json:"extendedAgentCard"`
	Extensions        []Extension `json:"extensions"`
}

type Served struct {
	Streaming         *bool `json:"streaming"`
	PushNotifications *bool `json:"pushNotifications"`
	ExtendedAgentCard *bool `json:"extendedAgentCard"`
}

type TLSFiles struct {
	Cert string `json:"cert"`
	Key  string `json:"key"`
}

type PortConfig struct {
	Port int `json:"port"`
}

type HTTPConfig struct {
	Port        int             `json:"port"`
	TLS         *TLSFiles       `json:"tls"`
	JSONRPCPath json.RawMessage `json:"jsonrpcPath"`
	RESTPath    json.RawMessage `json:"restPath"`
	Mode        string          `json:"mode"`
}

type GRPCConfig struct {
	Port     int       `json:"port"`
	TLS      *TLSFiles `json:"tls"`
	Register *bool     `json:"register"`
}

type CardConfig struct {
	Serve string          `json:"serve"`
	JSON  json.RawMessage `json:"json"`
}

type Interface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
	Tenant          string `json:"tenant,omitempty"`
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func strict(raw []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(into)
}

// listener decodes a listener field: absent -> def, false/null -> nil, object -> parsed.
func listener[T any](raw json.RawMessage, def *T) (*T, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "":
		return def, nil
	case "false", "null":
		return nil, nil
	}
	out := new(T)
	if err := strict(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

// mountPath decodes jsonrpcPath/restPath: absent -> def, null -> "" (not mounted).
func mountPath(raw json.RawMessage, def string) (string, error) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "":
		return def, nil
	case "null":
		return "", nil
	}
	var p string
	if err := json.Unmarshal(raw, &p); err != nil {
		return "", fmt.Errorf("mount path: %w", err)
	}
	return p, nil
}
