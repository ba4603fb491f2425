package providers

import (
	"context"
	"net"
	"net/netip"
)

// metadataAddrs are cloud metadata endpoints that are not covered by the private ranges.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"),
	netip.MustParseAddr("fd00:ec2::254"),
	netip.MustParseAddr("100.100.100.200"),
}

var sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")

// IsPublicAddr tells whether an address may be reached on a caller's behalf: not loopback,
// private, link-local, unspecified, multicast, shared (CGNAT) or a cloud metadata address.
func IsPublicAddr(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() ||
		a.IsLinkLocalMulticast() || a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	if sharedAddressSpace.Contains(a) {
		return false
	}
	for _, m := range metadataAddrs {
		if a == m {
			return false
		}
	}
	return true
}

// HostIsPublic resolves host (a name or a literal address) and tells whether every address it
// resolves to is public. A host that does not resolve is not public.
func HostIsPublic(ctx context.Context, resolver *net.Resolver, host string) (bool, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return IsPublicAddr(a), nil
	}
	if resolver == nil {
		resolver = net.DefaultResolver
	}
	addrs, err := resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false, err
	}
	if len(addrs) == 0 {
		return false, nil
	}
	for _, a := range addrs {
		if !IsPublicAddr(a) {
			return false, nil
		}
	}
	return true, nil
}
