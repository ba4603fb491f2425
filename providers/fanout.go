package providers

import (
	"fmt"
	"runtime/debug"
	"sync"
)

// FanOut runs the goroutines a billed call starts for its own parallel work (sharpen's
// reviewers, a market quote per symbol). The call pipeline recovers a panic only in the call's
// own goroutine; one in a goroutine it started would end the process. FanOut recovers it there
// and Wait returns it as the call's error (internal_error, the stack in its cause, which the
// error handler logs), so the reservation is refunded like any failed call.
type FanOut struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic *Error
}

// Go runs fn in a new goroutine of the fan-out.
func (f *FanOut) Go(fn func()) {
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		defer func() {
			if r := recover(); r != nil {
				e := &Error{Code: CodeInternal, Message: "an internal error occurred; it has been logged",
					Cause: fmt.Errorf("panic in a fan-out goroutine: %v\n%s", r, debug.Stack())}
				f.mu.Lock()
				if f.panic == nil {
					f.panic = e
				}
				f.mu.Unlock()
			}
		}()
		fn()
	}()
}

// Wait waits for every goroutine of the fan-out; the error is the first panic, nil when none.
func (f *FanOut) Wait() error {
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.panic == nil {
		return nil
	}
	return f.panic
}
