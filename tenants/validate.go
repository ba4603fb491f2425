package tenants

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrInvalid matches (errors.Is) every InvalidError: a value the store refuses to keep.
var ErrInvalid = errors.New("invalid value")

// InvalidError refuses a value at the store's boundary and names the field, so every caller (the
// API, the console, the CLI) answers the client's mistake as such instead of as a database failure.
type InvalidError struct {
	Field   string // the field as the caller knows it, such as "name" or "note"
	Message string // a sentence for the user, naming the field
}

func (e *InvalidError) Error() string { return e.Message }

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalidf(field, message string) error { return &InvalidError{Field: field, Message: message} }

// checkText refuses what the databases do not keep faithfully: PostgreSQL's TEXT refuses a NUL
// byte and invalid UTF-8 with an error (which would surface as an outage), and SQLite would store
// them and hand them to every later reader (logs, CSV, the console).
func checkText(field, v string) error {
	if strings.IndexByte(v, 0) >= 0 {
		return invalidf(field, field+" must not contain a NUL byte")
	}
	if !utf8.ValidString(v) {
		return invalidf(field, field+" must be valid UTF-8")
	}
	return nil
}

// checkTexts runs checkText over field/value pairs.
func checkTexts(fieldValues ...string) error {
	for i := 0; i+1 < len(fieldValues); i += 2 {
		if err := checkText(fieldValues[i], fieldValues[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// storable tells whether a value could have been stored at all (a search for anything else
// matches nothing, without asking the database).
func storable(v string) bool { return checkText("", v) == nil }
