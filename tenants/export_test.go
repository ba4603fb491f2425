package tenants

// SetMaxScanEntries lowers the entries a request log page may decode, until the returned func
// restores it.
func SetMaxScanEntries(n int) (restore func()) {
	old := maxScanEntries
	maxScanEntries = n
	return func() { maxScanEntries = old }
}
