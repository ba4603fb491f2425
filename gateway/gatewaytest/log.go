package gatewaytest

import (
	"log/slog"
	"testing"
)

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Log(string(p))
	return len(p), nil
}

// quietLogger sends the gateway's warnings and errors to the test log.
func quietLogger(tb testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tbWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
