package pageread

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/capgate/capgate/providers"
)

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestPublicAddr(t *testing.T) {
	cases := []struct {
		addr   string
		public bool
	}{
		{"93.184.215.14", true},
		{"208.80.154.224", true},
		{"2606:2800:21f:cb07:6820:80da:af6b:8b2c", true},
		{"2620:0:861:ed1a::1", true},
		{"64:ff9b::5db8:d70e", true}, // NAT64 of 93.184.215.14
		{"2002:5db8:d70e::1", true},  // 6to4 of 93.184.215.14
		{"127.0.0.1", false},
		{"127.255.255.254", false},
		{"10.0.0.1", false},
		{"172.31.255.255", false},
		{"192.168.0.1", false},
		{"169.254.169.254", false},
		{"169.254.1.1", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"100.100.100.200", false},
		{"224.0.0.251", false},
		{"239.255.255.250", false},
		{"0.0.0.0", false},
		{"0.0.0.1", false},
		{"192.0.0.8", false},
		{"192.0.2.1", false},
		{"198.18.0.1", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},
		{"::1", false},
		{"::", false},
		{"::127.0.0.1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.1.1.1", false},
		{"fc00::1", false},
		{"fd00:ec2::254", false},
		{"fe80::1", false},
		{"fec0::1", false},
		{"ff02::1", false},
		{"64:ff9b::a00:1", false},      // NAT64 of 10.0.0.1
		{"64:ff9b::7f00:1", false},     // NAT64 of 127.0.0.1
		{"64:ff9b:1::1", false},        // local-use NAT64
		{"2002:7f00:1::1", false},      // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false},   // 6to4 of 169.254.169.254
		{"2001:0:4136:e378::1", false}, // Teredo
		{"2001:db8::1", false},
		{"100::1", false},
	}
	strict := &guard{}
	loose := &guard{allowLoopbackForTests: true}
	for _, tc := range cases {
		a := mustAddr(tc.addr)
		if got := strict.allowed(a); got != tc.public {
			t.Errorf("allowed(%s) = %v, want %v", tc.addr, got, tc.public)
		}
		wantLoose := tc.public || a.Unmap().IsLoopback()
		if got := loose.allowed(a); got != wantLoose {
			t.Errorf("allowLoopbackForTests: allowed(%s) = %v, want %v", tc.addr, got, wantLoose)
		}
	}
}

func TestWhatwgIPv4(t *testing.T) {
	cases := []struct {
		host string
		want string
	}{
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"012.0.0.1", "10.0.0.1"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"3232235521", "192.168.0.1"},
		{"1.2.3.4.", "1.2.3.4"},
		{"1.2.3.256", ""},
		{"256.1.1.1", ""},
		{"4294967296", ""},
		{"1.2.3.4.5", ""},
		{"08.1.1.1", ""},
		{"example.com", ""},
	}
	for _, tc := range cases {
		a, ok := whatwgIPv4(tc.host)
		if (tc.want == "") != !ok || (ok && a.String() != tc.want) {
			t.Errorf("whatwgIPv4(%q) = %v, %v; want %q", tc.host, a, ok, tc.want)
		}
	}
	for host, numeric := range map[string]bool{"example.123": true, "a.0x1f": true, "1.2.3.999": true, "example.com": false, "123.example": false, "x1": false} {
		if got := numericHost(host); got != numeric {
			t.Errorf("numericHost(%q) = %v, want %v", host, got, numeric)
		}
	}
}

func TestControlRefusesNonPublicSockets(t *testing.T) {
	g := &guard{}
	for _, a := range []string{"127.0.0.1:80", "10.0.0.1:443", "[::1]:80", "169.254.169.254:80", "[fd00:ec2::254]:80"} {
		if err := g.control("tcp4", a, nil); err == nil {
			t.Errorf("control allowed %s", a)
		}
	}
	if err := g.control("tcp4", "93.184.215.14:443", nil); err != nil {
		t.Errorf("control refused a public address: %v", err)
	}
	if err := g.control("tcp", "not-an-address", nil); err == nil {
		t.Error("control allowed a non-address")
	}
	// The default dialer runs control on the real socket: even a direct dial to a loopback listener
	// is refused when the guard does not allow loopback.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	d := &net.Dialer{Control: g.control}
	if conn, err := d.Dial("tcp", srv.Listener.Addr().String()); err == nil {
		conn.Close()
		t.Error("dialer with control reached a loopback listener")
	}
}

// TestRefusedBeforeAnyFetch: URLs refused by their literal host or by what the host resolves to
// never reach the page or the reader, also when the request rules are bypassed (Read).
func TestRefusedBeforeAnyFetch(t *testing.T) {
	cases := []struct {
		name, url string
	}{
		{"loopback", "http://127.0.0.1/"},
		{"loopback with port", "http://127.0.0.1:6379/"},
		{"private", "http://10.0.0.1/"},
		{"metadata", "http://169.254.169.254/latest/meta-data/"},
		{"IPv6 loopback", "http://[::1]/"},
		{"IPv6 metadata", "http://[fd00:ec2::254]/"},
		{"decimal loopback", "http://2130706433/"},
		{"metadata name", "http://metadata.google.internal/"},
		{"localhost", "http://localhost/"},
		{"userinfo", "https://admin:secret@example.org/"},
		{"ftp", "ftp://example.org/"},
		{"name resolving to loopback", "http://loopback.example.org/"},
		{"name resolving to metadata", "http://meta.example.org/latest/"},
		{"name resolving to IPv6 loopback", "http://six.example.org/"},
		{"one private address among public ones", "https://mixed.example.org/"},
		{"name that does not resolve", "https://nxdomain.example.org/"},
	}
	res := newResolver(t, map[string]string{
		"loopback.example.org": "127.0.0.1",
		"meta.example.org":     "169.254.169.254",
		"six.example.org":      "::1",
	}).add("mixed.example.org", "93.184.216.34", "10.9.8.7")
	g := noNetwork(t)
	g.resolver = res
	withGuard(t, g)
	client := readerClient(t, refuseReader(t), "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readLive(t, client, tc.url)
			wantError(t, err, providers.CodeInvalidRequest, no, "/url")
		})
	}
}

// TestHostMappedAndLegacyIPv4Refused: the host is mapped with IDNA (UTS 46) before any check, and
// every IPv4 form other than the standard dotted quad is refused, public or not, without a lookup.
func TestHostMappedAndLegacyIPv4Refused(t *testing.T) {
	cases := []struct {
		name, url, says string
	}{
		{"full-width short loopback", "http://１２７。１/", "127.0.0.1"},
		{"full-width hex", "http://０x7f。1/", "127.0.0.1"},
		{"full-width dotted quad", "http://１２７．０．０．１/", "127.0.0.1"},
		{"short form", "http://127.1/", "127.0.0.1"},
		{"three parts", "http://127.0.1/", "127.0.0.1"},
		{"octal", "http://0177.0.0.1/", "127.0.0.1"},
		{"octal private", "http://012.0.0.1/", "10.0.0.1"},
		{"hex integer", "http://0x7f000001/", "127.0.0.1"},
		{"hex parts", "http://0xa9.0xfe.0xa9.0xfe/", "169.254.169.254"},
		{"decimal integer", "http://2130706433/", "127.0.0.1"},
		{"mixed", "http://0x7f.0.0.01/", "127.0.0.1"},
		{"public hex", "http://0x5d.184.215.14/", "93.184.215.14"},
		{"public decimal integer", "http://1572395790/", "93.184.215.14"},
		{"leading zero public", "http://93.184.215.014/", "93.184.215.12"},
		{"out of range", "http://1.2.3.999/", "standard IPv4"},
		{"full-width localhost", "http://ｌｏｃａｌｈｏｓｔ/", "localhost"},
		{"soft hyphen localhost", "http://loc\u00adalhost/", "localhost"},
		{"full-width metadata name", "http://ｍｅｔａｄａｔａ.google.internal/", "metadata"},
		{"full-width private quad", "http://１０.０.０.１/", "10.0.0.1"},
	}
	g := noNetwork(t) // any lookup or connection fails the test
	withGuard(t, g)
	client := readerClient(t, refuseReader(t), "")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, msg := g.check(tc.url)
			if msg == "" || !strings.Contains(msg, tc.says) {
				t.Errorf("check(%q) = %q, want a refusal naming %q", tc.url, msg, tc.says)
			}
			_, err := readLive(t, client, tc.url)
			wantError(t, err, providers.CodeInvalidRequest, no, "/url")
		})
	}
}

// loopbackGuard lets the pre-flight reach httptest servers on 127.0.0.1 (and only loopback).
func loopbackGuard(t *testing.T, res *mapResolver) *guard {
	g := &guard{allowLoopbackForTests: true, resolver: res}
	if res == nil {
		g.resolver = failResolver{t}
	}
	withGuard(t, g)
	return g
}

func TestRedirects(t *testing.T) {
	var hops atomic.Int32
	mux := http.NewServeMux()
	redirect := func(path, to string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			hops.Add(1)
			http.Redirect(w, r, to, http.StatusFound)
		})
	}
	mux.HandleFunc("/final", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	redirect("/to-private", "http://10.0.0.1/")
	redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/")
	redirect("/to-ipv6-loopback-literal-free", "http://[fd00:ec2::254]/")
	redirect("/to-private-name", "http://internal.example.org/admin")
	redirect("/to-missing-name", "http://nxdomain.example.org/")
	redirect("/to-decimal", "http://167772161/") // 10.0.0.1
	redirect("/to-file", "file:///etc/passwd")
	redirect("/to-userinfo", "http://user:pw@www.example.org/")
	redirect("/to-localhost", "http://localhost/")
	for i := 0; i < 7; i++ {
		redirect("/chain/"+strconv.Itoa(i), "/chain/"+strconv.Itoa(i+1))
	}
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.HandleFunc("/head-refused", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		http.Redirect(w, r, "/final", http.StatusMovedPermanently)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	named := "http://site.example.org:" + strconv.Itoa(port)
	redirect("/to-named", named+"/final")

	refused := []struct {
		path, msg string
	}{
		{"/to-private", "10.0.0.1"},
		{"/to-metadata", "169.254.169.254"},
		{"/to-ipv6-loopback-literal-free", "fd00:ec2::254"},
		{"/to-private-name", "10.1.2.3"},
		{"/to-missing-name", "does not resolve"},
		{"/to-decimal", "10.0.0.1"},
		{"/to-file", "http and https"},
		{"/to-userinfo", "user name or password"},
		{"/to-localhost", "local or cloud metadata name"},
		{"/chain/0", "more than 5"},
	}
	for _, tc := range refused {
		t.Run("refused "+tc.path, func(t *testing.T) {
			loopbackGuard(t, newResolver(t, map[string]string{"internal.example.org": "10.1.2.3"}))
			_, err := execLive(t, readerClient(t, refuseReader(t), ""), `{"url":"`+srv.URL+tc.path+`"}`)
			e := wantError(t, err, providers.CodeProviderError, no)
			if !strings.Contains(e.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Message, tc.msg)
			}
		})
	}

	followed := []struct {
		path, final string
		redirects   bool
	}{
		{"/final", srv.URL + "/final", false},
		{"/chain/2", srv.URL + "/chain/7", true}, // exactly 5 redirects
		{"/head-refused", srv.URL + "/final", true},
		{"/to-named", named + "/final", true},
	}
	for _, tc := range followed {
		t.Run("followed "+tc.path, func(t *testing.T) {
			loopbackGuard(t, newResolver(t, map[string]string{"site.example.org": "127.0.0.1"}))
			rd := echoReader(t, "")
			page, err := execLive(t, readerClient(t, rd, ""), `{"url":"`+srv.URL+tc.path+`"}`)
			if err != nil {
				t.Fatal(err)
			}
			reqs := rd.Requests()
			if len(reqs) != 1 || targetOf(reqs[0]) != tc.final {
				t.Fatalf("reader asked for %v, want %s", reqs, tc.final)
			}
			if page.Records[0].URL != tc.final {
				t.Errorf("record url = %q, want %q", page.Records[0].URL, tc.final)
			}
			if got := len(page.Notes) == 1 && strings.Contains(page.Notes[0], "redirected"); got != tc.redirects {
				t.Errorf("notes = %v", page.Notes)
			}
		})
	}
}

// TestDNSRebinding: the host resolves to a public address for the up-front check and to a
// private one when the pre-flight connects; the dial-time check refuses it.
func TestDNSRebinding(t *testing.T) {
	res := newResolver(t, nil).add("rebind.example.org", "93.184.216.34").add("rebind.example.org", "10.0.0.9")
	g := &guard{resolver: res, dial: func(ctx context.Context, network, address string) (net.Conn, error) {
		t.Errorf("dialled %s", address)
		return nil, errors.New("no")
	}}
	withGuard(t, g)
	_, err := execLive(t, readerClient(t, refuseReader(t), ""), `{"url":"http://rebind.example.org/"}`)
	wantError(t, err, providers.CodeInvalidRequest, no, "/url")
	if n := res.count("rebind.example.org"); n != 2 {
		t.Errorf("%d lookups, want 2 (the check and the dial)", n)
	}
}

func TestPreflightFailures(t *testing.T) {
	t.Run("timeout", func(t *testing.T) {
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}))
		defer slow.Close()
		loopbackGuard(t, nil)
		client := readerClient(t, refuseReader(t), "")
		ctx, cancel := context.WithTimeout(context.Background(), 900*time.Millisecond)
		defer cancel()
		_, err := Read(ctx, providers.NewCall(readCap, providers.Request{}, nil, providers.ModeLive, "tnt_test", client), slow.URL+"/", 0)
		wantError(t, err, providers.CodeProviderTimeout, yes)
	})
	t.Run("connection refused", func(t *testing.T) {
		in := newInternet(t, okSite(), map[string]string{"down.example.org": "93.184.216.34"})
		in.guard.dial = func(ctx context.Context, network, address string) (net.Conn, error) {
			return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
		}
		withGuard(t, in.guard)
		_, err := execLive(t, readerClient(t, refuseReader(t), ""), `{"url":"https://down.example.org/"}`)
		wantError(t, err, providers.CodeProviderError, yes)
	})
	t.Run("untrusted certificate", func(t *testing.T) {
		in := newInternet(t, okSite(), map[string]string{"example.com": "93.184.215.14"})
		in.guard.tlsConfig = nil // system roots do not trust the test server
		withGuard(t, in.guard)
		_, err := execLive(t, readerClient(t, refuseReader(t), ""), `{"url":"https://example.com/"}`)
		e := wantError(t, err, providers.CodeProviderError, no)
		if !strings.Contains(e.Message, "certificate") {
			t.Errorf("message = %q", e.Message)
		}
	})
	t.Run("error page is still read", func(t *testing.T) {
		in := newInternet(t, http.NotFoundHandler(), map[string]string{"example.com": "93.184.215.14"})
		withGuard(t, in.guard)
		page, err := execLive(t, readerClient(t, echoReader(t, ""), ""), `{"url":"https://example.com/nope"}`)
		if err != nil || len(page.Records) != 1 {
			t.Fatalf("page %v, err %v", page, err)
		}
	})
}

func TestCheckNormalizes(t *testing.T) {
	g := &guard{}
	cases := map[string]string{
		"HTTPS://Example.COM/Path?q=1#frag":                   "https://example.com/Path?q=1",
		"http://example.com.:8080/":                           "http://example.com:8080/",
		"http://bücher.example/":                              "http://xn--bcher-kva.example/",
		"http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:81/": "http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:81/",
		"http://ＥＸＡＭＰＬＥ。com/":                                 "http://example.com/",
		"http://93.184.215.14./":                              "http://93.184.215.14/",
	}
	for in, want := range cases {
		tg, msg := g.check(in)
		if msg != "" {
			t.Errorf("check(%q) refused: %s", in, msg)
			continue
		}
		if tg.URL.String() != want {
			t.Errorf("check(%q) = %q, want %q", in, tg.URL, want)
		}
	}
	if _, msg := g.check("http://[fe80::1%25eth0]/"); msg == "" {
		t.Error("a zoned address was allowed")
	}
	if _, msg := g.check("http://%zz/"); msg == "" {
		t.Error("an unparsable URL was allowed")
	}
	// The sandbox lookup never performs DNS: public-looking names get a public address derived
	// from the name, the reserved misses and special-use names none.
	a1, err1 := g.lookup(context.Background(), providers.ModeTest, "www.example.org")
	a2, err2 := g.lookup(context.Background(), providers.ModeTest, "www.example.org")
	if err1 != nil || err2 != nil || len(a1) != 1 || a1[0] != a2[0] || !publicAddr(a1[0]) {
		t.Errorf("the sandbox gave www.example.org %v (%v), want one stable public address", a1, err1)
	}
	for _, h := range []string{"sandbox-not-found.com", "intranet", "printer.local", "x.invalid", "db.internal"} {
		if _, err := g.lookup(context.Background(), providers.ModeTest, h); err == nil {
			t.Errorf("the sandbox resolved %s", h)
		}
	}
}
