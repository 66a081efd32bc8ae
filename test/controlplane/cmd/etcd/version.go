package main

import "go.etcd.io/etcd/api/v3/version"

func embedVersion() string { return version.Version }
