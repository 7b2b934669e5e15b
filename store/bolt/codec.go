package bolt

import (
	"encoding/json"
	"fmt"
)

// decode unmarshals a record read by a cursor; a record that fails to decode
// is corruption and is reported, never skipped.
func decode(bucket, k, v []byte, out any) error {
	if err := json.Unmarshal(v, out); err != nil {
		return fmt.Errorf("decode %s/%x: %w", bucket, k, err)
	}
	return nil
}
