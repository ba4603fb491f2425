package lenient

import (
	"bytes"
	"encoding/binary"
	"unicode/utf8"
	"unsafe"

	"github.com/valyala/fastjson"
)

// text is a string value as the streaming path reads it: escapes undone, invalid UTF-8 bytes
// replaced. It points into the parser's buffer: copy what is kept.
func text(v *fastjson.Value) string {
	b, _ := v.StringBytes()
	return validUTF8(unsafe.String(unsafe.SliceData(b), len(b)))
}

// validUTF8 replaces every byte that is not part of a UTF-8 sequence with U+FFFD, as
// encoding/json does.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = utf8.AppendRune(b, utf8.RuneError)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// numberText is a JSON number's literal text, valid until the next call.
func (d *decoder) numberText(v *fastjson.Value) string {
	d.scratch = v.MarshalTo(d.scratch[:0])
	return unsafe.String(unsafe.SliceData(d.scratch), len(d.scratch))
}

// escapes counts the escapes of control characters in data and tells whether fastjson reads
// every escape as encoding/json does: not an escape JSON does not have (fastjson keeps it as
// text) or an escaped UTF-16 surrogate that is not part of a valid pair (fastjson keeps it as
// text, encoding/json writes U+FFFD). Outside strings valid JSON has no backslash, inside a
// backslash always starts an escape, so escapes are found by walking from one backslash to the
// next.
func escapes(data []byte) (controls int, ok bool) {
	for i := 0; i < len(data); {
		j := bytes.IndexByte(data[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if i+1 >= len(data) {
			return 0, false
		}
		switch data[i+1] {
		case '"', '\\', '/':
			i += 2
		case 'b', 'f', 'n', 'r', 't':
			controls++
			i += 2
		case 'u':
			r, ok := hex4(data, i+2)
			switch {
			case !ok || r >= 0xDC00 && r <= 0xDFFF:
				return 0, false
			case r < 0x20:
				controls++
				i += 6
			case r < 0xD800 || r > 0xDFFF:
				i += 6
			default:
				if i+7 >= len(data) || data[i+6] != '\\' || data[i+7] != 'u' {
					return 0, false
				}
				if r2, ok := hex4(data, i+8); !ok || r2 < 0xDC00 || r2 > 0xDFFF {
					return 0, false
				}
				i += 12
			}
		default:
			return 0, false
		}
	}
	return controls, true
}

// grammatical tells whether every number in the tree is a JSON number, and counts the control
// characters of its strings and member names.
func (d *decoder) grammatical(v *fastjson.Value) (controls int, ok bool) {
	switch v.Type() {
	case fastjson.TypeNumber:
		return 0, jsonNumber(d.numberText(v))
	case fastjson.TypeString:
		b, _ := v.StringBytes()
		return countControls(b), true
	case fastjson.TypeArray:
		arr, _ := v.Array()
		for _, e := range arr {
			n, ok := d.grammatical(e)
			if !ok {
				return 0, false
			}
			controls += n
		}
	case fastjson.TypeObject:
		o, _ := v.Object()
		ok = true
		o.Visit(func(key []byte, e *fastjson.Value) {
			if !ok {
				return
			}
			n, eok := d.grammatical(e)
			controls += countControls(key) + n
			ok = eok
		})
		return controls, ok
	}
	return controls, true
}

// countControls counts the bytes of b below 0x20, skipping eight bytes at a time where there are
// none: (x - 0x20 in every byte) & ^x & 0x80 in every byte is zero exactly when no byte of x is
// below 0x20.
func countControls(b []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n, i := 0, 0
	for ; i+8 <= len(b); i += 8 {
		if x := binary.LittleEndian.Uint64(b[i:]); (x-0x20*ones)&^x&highs == 0 {
			continue
		}
		for _, c := range b[i : i+8] {
			if c < 0x20 {
				n++
			}
		}
	}
	for _, c := range b[i:] {
		if c < 0x20 {
			n++
		}
	}
	return n
}

// jsonNumber tells whether s is a number in JSON's grammar.
func jsonNumber(s string) bool {
	i := 0
	digits := func() int {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case digits() == 0:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func hex4(data []byte, at int) (rune, bool) {
	if at+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[at : at+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
