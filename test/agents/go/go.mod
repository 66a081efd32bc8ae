module github.com/a2a-operator/a2a-operator/test/agents/go

go 1.26.0

require (
	github.com/a2aproject/a2a-go/v2 v2.3.1
	google.golang.org/grpc v1.80.0
)

require (
	github.com/a2aproject/a2a-go v0.3.15 // indirect
	github.com/google/uuid v1.6.0 // indirect
	golang.org/x/mod v0.33.0 // indirect
	golang.org/x/net v0.49.0 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/sys v0.40.0 // indirect
	golang.org/x/text v0.33.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20260427160629-7cedc36a6bc4 // indirect
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260427160629-7cedc36a6bc4 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)
