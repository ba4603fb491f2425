package lenient

import "reflect"

// UnmarshalStreaming is the streaming path alone.
var UnmarshalStreaming = unmarshalStreaming

// UnmarshalFast is the fast path alone; false means it left the input to the streaming path.
var UnmarshalFast = unmarshalFast

// TakesFastPath tells whether values of type t are decoded by the fast path.
func TakesFastPath(t reflect.Type) bool { return planFor(t) != nil }
