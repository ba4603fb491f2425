// Command openapidoc writes the gateway's OpenAPI document, exactly as GET /v1/openapi.json
// serves it without GATEWAY_PUBLIC_URL (servers: "/"), indented, to stdout or to the file named
// by its only argument. scripts/gen-client.sh feeds it to oapi-codegen.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/capgate/capgate/gateway"
	"github.com/capgate/capgate/providers/registry"
)

func main() {
	b, err := json.Marshal(gateway.OpenAPI(registry.Capabilities(), ""))
	if err == nil {
		var out bytes.Buffer
		if err = json.Indent(&out, b, "", "  "); err == nil {
			out.WriteByte('\n')
			if len(os.Args) > 1 {
				err = os.WriteFile(os.Args[1], out.Bytes(), 0o644)
			} else {
				_, err = os.Stdout.Write(out.Bytes())
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapidoc:", err)
		os.Exit(1)
	}
}
