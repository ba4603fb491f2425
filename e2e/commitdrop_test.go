package e2e

import (
	"bufio"
	"context"
	binenc "encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// commitDropProxy is a TCP proxy between a gateway and PostgreSQL that, while dropping is on,
// swallows the server's reply to a COMMIT at random and closes both sides of that connection:
// the server has committed, the gateway never hears it (what a connection lost at the wrong
// moment does). It reads the server's side of the protocol message by message (a type byte and a
// length, then the body; the test server runs without TLS).
type commitDropProxy struct {
	ln     net.Listener
	target string
	rate   float64 // the share of COMMIT replies swallowed while dropping

	dropping          atomic.Bool
	commits, swallows atomic.Int64
	wg                sync.WaitGroup
}

func newCommitDropProxy(t *testing.T, target string, rate float64) *commitDropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &commitDropProxy{ln: ln, target: target, rate: rate}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() {
		ln.Close()
		p.wg.Wait()
	})
	return p
}

func (p *commitDropProxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.wg.Add(2)
		go func() { // the client's messages pass unchanged
			defer p.wg.Done()
			_, _ = io.Copy(server, client)
			server.Close()
			client.Close()
		}()
		go func() {
			defer p.wg.Done()
			p.serverToClient(server, client)
			server.Close()
			client.Close()
		}()
	}
}

// serverToClient forwards the server's messages; a CommandComplete "COMMIT" it decides to
// swallow ends the connection instead.
func (p *commitDropProxy) serverToClient(server, client net.Conn) {
	in := bufio.NewReaderSize(server, 64<<10)
	out := bufio.NewWriterSize(client, 64<<10)
	var head [5]byte
	for {
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return
		}
		n := int(binenc.BigEndian.Uint32(head[1:])) - 4
		if n < 0 || n > 64<<20 {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		if head[0] == 'C' && string(body) == "COMMIT\x00" {
			p.commits.Add(1)
			if p.dropping.Load() && rand.Float64() < p.rate {
				p.swallows.Add(1)
				return // the caller closes both sides: the reply never arrives
			}
		}
		if _, err := out.Write(head[:]); err != nil {
			return
		}
		if _, err := out.Write(body); err != nil {
			return
		}
		if in.Buffered() == 0 {
			if err := out.Flush(); err != nil {
				return
			}
		}
	}
}

// TestLostCommitReplyNeverSellsACreditTwice: a proxy between the gateway and PostgreSQL drops
// COMMIT replies at random while concurrent 1-credit calls run against a small cap. A charge
// whose COMMIT reply was lost is looked up, not refunded into the lease and sold again: after the
// run used == SUM(ledger) <= cap, every 200 has exactly one ledger row and every other answer none.
func TestLostCommitReplyNeverSellsACreditTwice(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		if backend != "postgres" {
			t.Skip("the proxy speaks PostgreSQL's wire protocol")
		}
		const (
			capCredits = 60
			calls      = 300
			workers    = 8
		)
		d := newDeployment(t, backend)
		u, err := url.Parse(d.DatabaseURL)
		if err != nil {
			t.Fatal(err)
		}
		proxy := newCommitDropProxy(t, u.Host, 0.35)
		pu := *u
		pu.Host = proxy.ln.Addr().String()
		proxied := *d
		proxied.DatabaseURL = pu.String()
		// A short lease TTL: credits of a lease whose own COMMIT reply was lost come back soon.
		in := proxied.serve(t, "GATEWAY_LEASE_TTL=2s")

		d.admin(t, "plan", "create", "--name", "probe", "--cap", "1000", "--rate", "1000000", "--capabilities", "all")
		probe := d.newTenant(t, "probe")
		path, body := oneCreditSandboxCall(t, in, probe.Test)
		d.admin(t, "plan", "create", "--name", "dropcap", "--cap", fmt.Sprint(capCredits), "--rate", "1000000", "--capabilities", "all")
		tk := d.newTenant(t, "dropcap")

		statuses := make([]int, calls)
		var next atomic.Int64
		var wg sync.WaitGroup
		proxy.dropping.Store(true)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= calls {
						return
					}
					status, out, err := quickCall(in.Base, path, tk.Test, fmt.Sprintf("req_drop%08d", i), body)
					if err != nil {
						t.Errorf("call %d: %v", i, err)
						continue
					}
					statuses[i] = status
					switch status {
					case http.StatusOK, http.StatusPaymentRequired, http.StatusServiceUnavailable:
					default:
						t.Errorf("call %d: status %d: %v", i, status, out)
					}
					if status == http.StatusOK {
						if c, _ := num(out, "charged_credits"); c != 1 {
							t.Errorf("call %d: charged %v credits, want 1", i, c)
						}
					}
					if status == http.StatusPaymentRequired {
						// Credits of a lease whose own COMMIT reply was lost come back once it
						// expires: later calls can still use them.
						time.Sleep(250 * time.Millisecond)
					}
				}
			}()
		}
		wg.Wait()
		proxy.dropping.Store(false)
		httpClient.CloseIdleConnections()

		db := openDeploymentDB(t, d)
		var rows []struct {
			RequestID string `bun:"request_id"`
			N         int    `bun:"n"`
		}
		if err := db.NewSelect().Table("ledger").Column("request_id").ColumnExpr("COUNT(*) AS n").
			Where("tenant_id = ?", tk.ID).Group("request_id").Scan(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		inLedger := map[string]int{}
		ledgerRows := 0
		for _, r := range rows {
			inLedger[r.RequestID] = r.N
			ledgerRows += r.N
		}
		oks, others := 0, 0
		byStatus := map[int]int{}
		for i, status := range statuses {
			byStatus[status]++
			rid := fmt.Sprintf("req_drop%08d", i)
			if status == http.StatusOK {
				oks++
				if inLedger[rid] != 1 {
					t.Errorf("%s answered 200 with %d ledger rows, want 1", rid, inLedger[rid])
				}
				continue
			}
			others++
			if inLedger[rid] != 0 {
				t.Errorf("%s answered %d but has %d ledger rows, want none", rid, status, inLedger[rid])
			}
		}
		used, _, ledger := creditTotals(t, db, tk.ID)
		t.Logf("COMMIT replies swallowed %d of %d; calls %d: 200s %d, others %d %v; ledger rows %d; used %d, SUM(ledger) %d, cap %d",
			proxy.swallows.Load(), proxy.commits.Load(), calls, oks, others, byStatus, ledgerRows, used, ledger, capCredits)
		if used != ledger || used > capCredits {
			t.Fatalf("used %d, SUM(ledger) %d, cap %d: want used == SUM(ledger) <= cap", used, ledger, capCredits)
		}
		if int64(oks) != ledger || ledgerRows != oks {
			t.Fatalf("200s %d, ledger rows %d, SUM(ledger) %d: want all equal", oks, ledgerRows, ledger)
		}
		if proxy.swallows.Load() == 0 {
			t.Fatal("the proxy swallowed no COMMIT reply: the test proved nothing")
		}
		if oks == 0 {
			t.Fatalf("no call succeeded:\n%s", tail(in.stderr.String(), 30))
		}
	})
}
