package webread

import (
	"github.com/capgate/capgate/providers"
	"github.com/capgate/capgate/providers/upstream/pageread"
)

// Providers lists the upstream of this package: the reader of providers/upstream/pageread.
func Providers() []*providers.Provider { return pageread.Providers() }
