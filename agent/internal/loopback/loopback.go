// Package loopback keeps the requests of a model server that Hark judged
// to be on this machine on this machine. Whether a server is local is
// decided by its name alone (Is); Transport then makes sure that neither
// a proxy nor a name's answer sends its requests, and what the user said,
// anywhere else. Both model clients, Ollama's and the OpenAI-compatible
// one, use it.
package loopback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Is says whether h names this machine: a loopback address, or localhost
// and its subdomains (RFC 6761). A name is not resolved, since a DNS
// answer can change.
func Is(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Transport is the transport of a client whose server Is this machine. It
// never uses a proxy (HTTP_PROXY would otherwise carry a "local" request
// to another host: Go exempts only localhost and loopback addresses, not
// other names under .localhost), and it dials only loopback addresses,
// whatever a name resolves to, so an /etc/hosts line or a DNS answer
// cannot turn a local server into a remote one that allowCloudModels never
// allowed. Each loopback answer is tried in turn: localhost is ::1 first
// on many systems, and a server may listen on 127.0.0.1 only.
func Transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		addrs, err := Addrs(ctx, net.DefaultResolver, addr)
		if err != nil {
			return nil, err
		}
		var errs []error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, a)
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
		}
		return nil, errors.Join(errs...)
	}
	return t
}

// Resolver is the part of *net.Resolver Addrs uses.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Addrs are addr with its host replaced by each loopback address it
// resolves to, in the resolver's order, or an error naming where it
// points instead.
func Addrs(ctx context.Context, r Resolver, addr string) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return nil, fmt.Errorf("%s is not this machine; Hark sends a local server's requests only to loopback", host)
		}
		return []string{addr}, nil
	}
	ips, err := r.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	var local, elsewhere []string
	for _, ip := range ips {
		if ip.IP.IsLoopback() {
			local = append(local, net.JoinHostPort(ip.IP.String(), port))
		} else {
			elsewhere = append(elsewhere, ip.IP.String())
		}
	}
	if len(local) > 0 {
		return local, nil
	}
	return nil, fmt.Errorf("%s resolves to %s, not this machine; set ollamaHost or openaiBaseURL to 127.0.0.1, or to the server's real address with \"allowCloudModels\": true", host, strings.Join(elsewhere, ", "))
}
