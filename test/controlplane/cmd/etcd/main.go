// Command etcd runs an embedded etcd server (go.etcd.io/etcd/server/v3/embed) with the
// subset of etcd's flags that envtest passes, so the harness can treat it like the
// upstream binary. It uses the etcd version that k8s.io/kubernetes pins.
package main

import (
	"flag"
	"fmt"
	"log"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"go.etcd.io/etcd/server/v3/embed"
)

func parseURLs(list string) []url.URL {
	var out []url.URL
	for _, s := range strings.Split(list, ",") {
		if s == "" {
			continue
		}
		u, err := url.Parse(s)
		if err != nil {
			log.Fatalf("bad url %q: %v", s, err)
		}
		out = append(out, *u)
	}
	return out
}

func main() {
	dataDir := flag.String("data-dir", "", "data directory")
	listenClient := flag.String("listen-client-urls", "http://127.0.0.1:2379", "client urls")
	advertiseClient := flag.String("advertise-client-urls", "", "advertised client urls (default: listen-client-urls)")
	listenPeer := flag.String("listen-peer-urls", "http://127.0.0.1:0", "peer urls")
	unsafeNoFsync := flag.Bool("unsafe-no-fsync", false, "skip fsync (tests only)")
	quotaBytes := flag.Int64("quota-backend-bytes", 0, "backend quota")
	version := flag.Bool("version", false, "print version")
	flag.Parse()
	if *version {
		fmt.Println("etcd (embedded) " + embedVersion())
		return
	}
	if *dataDir == "" {
		log.Fatal("--data-dir is required")
	}
	cfg := embed.NewConfig()
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = parseURLs(*listenClient)
	if *advertiseClient == "" {
		*advertiseClient = *listenClient
	}
	cfg.AdvertiseClientUrls = parseURLs(*advertiseClient)
	cfg.ListenPeerUrls = parseURLs(*listenPeer)
	cfg.AdvertisePeerUrls = cfg.ListenPeerUrls
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = *unsafeNoFsync
	cfg.QuotaBackendBytes = *quotaBytes
	cfg.LogLevel = "error"
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		log.Fatalf("start etcd: %v", err)
	}
	defer e.Close()
	<-e.Server.ReadyNotify()
	fmt.Fprintln(os.Stderr, "etcd ready on", *listenClient)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-sig:
	case err := <-e.Err():
		log.Fatalf("etcd: %v", err)
	}
}
