// Command vcdsim-conformance drives a Cloud Director endpoint (vcdsim in the tests) with VMware's
// Go SDK (go-vcloud-director) through the calls a Cluster API provider makes, and prints one JSON
// line per step: {"step", "ok", "ms", "detail", "error"}. It never stops at a failed step; a step
// whose inputs a failed step should have made fails saying so. Exit code 1 if any step failed.
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/vmware/go-vcloud-director/v2/govcd"
)

// config is what the program needs to know about the endpoint and its seed.
type config struct {
	url, caFile, login                            string
	org, user, password, apiToken                 string
	vdc, catalog, template, network, edge, sizing string
	list                                          bool
}

func main() {
	var c config
	flag.StringVar(&c.url, "url", "", "base URL, e.g. https://127.0.0.1:8443")
	flag.StringVar(&c.caFile, "ca", "", "PEM file of the CA to trust (empty: the SDK's insecure flag)")
	flag.StringVar(&c.login, "login", "password", "password | token (API token, refresh grant)")
	flag.StringVar(&c.org, "org", "tenant-a", "org")
	flag.StringVar(&c.user, "user", "alice", "user")
	flag.StringVar(&c.password, "password", "alice-password", "password")
	flag.StringVar(&c.apiToken, "api-token", "alice-api-token", "API token (refresh token)")
	flag.StringVar(&c.vdc, "vdc", "vdc-a", "org VDC")
	flag.StringVar(&c.catalog, "catalog", "templates", "catalog")
	flag.StringVar(&c.template, "template", "ubuntu-2404-kube-v1.35", "vApp template")
	flag.StringVar(&c.network, "network", "net-a", "org VDC network (routed through -edge)")
	flag.StringVar(&c.edge, "edge", "edge-a", "NSX-T edge gateway")
	flag.StringVar(&c.sizing, "sizing", "small", "sizing policy")
	flag.BoolVar(&c.list, "list", false, "print the step names and exit")
	flag.Parse()
	if c.list {
		for _, s := range steps() {
			fmt.Println(s.name)
		}
		return
	}
	if c.url == "" {
		fmt.Fprintln(os.Stderr, "-url is required")
		os.Exit(2)
	}
	r := &run{cfg: c, out: json.NewEncoder(os.Stdout)}
	for _, s := range steps() {
		r.do(s)
	}
	if r.failed > 0 {
		os.Exit(1)
	}
}

// step is one SDK interaction; it answers a detail line or an error.
type step struct {
	name string
	fn   func(r *run) (string, error)
}

type result struct {
	Step   string `json:"step"`
	OK     bool   `json:"ok"`
	Ms     int64  `json:"ms"`
	Detail string `json:"detail,omitempty"`
	Error  string `json:"error,omitempty"`
}

// run holds the client and what earlier steps made for later ones.
type run struct {
	cfg    config
	out    *json.Encoder
	failed int
	client *govcd.VCDClient
	state
}

func (r *run) do(s step) {
	started := time.Now()
	detail, err := safe(s.fn, r)
	res := result{Step: s.name, OK: err == nil, Ms: time.Since(started).Milliseconds(), Detail: detail}
	if err != nil {
		res.Error = err.Error()
		r.failed++
	}
	_ = r.out.Encode(res)
}

// safe turns a panic in the SDK (e.g. on a nil field) into the step's error.
func safe(fn func(*run) (string, error), r *run) (detail string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	return fn(r)
}

// newClient makes an SDK client that trusts the CA file (or skips verification without one).
func newClient(c config) (*govcd.VCDClient, error) {
	u, err := url.Parse(strings.TrimRight(c.url, "/") + "/api")
	if err != nil {
		return nil, err
	}
	client := govcd.NewVCDClient(*u, c.caFile == "", govcd.WithAPIVersion("37.2"))
	if c.caFile != "" {
		pem, err := os.ReadFile(c.caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("no certificate in %s", c.caFile)
		}
		client.Client.Http.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	return client, nil
}

// need fails a step whose input an earlier step did not make.
func need(ok bool, what string) error {
	if !ok {
		return fmt.Errorf("not run: needs %s (an earlier step failed)", what)
	}
	return nil
}
