package providers

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestFanOutRecoversAPanic(t *testing.T) {
	var f FanOut
	var ran atomic.Int64
	for i := range 4 {
		f.Go(func() {
			ran.Add(1)
			if i == 2 {
				panic("boom")
			}
		})
	}
	err := f.Wait()
	e, ok := AsError(err)
	if !ok || e.Code != CodeInternal || !strings.Contains(err.Error(), "boom") || ran.Load() != 4 {
		t.Fatalf("err %v, ran %d: want internal_error carrying the panic after all four ran", err, ran.Load())
	}
	var quiet FanOut
	quiet.Go(func() {})
	if err := quiet.Wait(); err != nil {
		t.Fatalf("no panic: %v", err)
	}
}
