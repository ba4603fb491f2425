// Package layout holds no code: its tests check the rules of the source tree that the README's
// architecture section states, so that a change that breaks one fails make test.
//
//   - The gateway and the console import no capability or upstream package: only the capability
//     model (providers) and the stores; cmd binds the rest (imports_test.go).
//   - No non-generated, non-test Go file is over 700 lines and no function in one is over 100
//     lines (size_test.go).
package layout
