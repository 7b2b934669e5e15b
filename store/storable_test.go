package store

import "testing"

func TestCheckStorableFields(t *testing.T) {
	type nested struct {
		Labels map[string]string
		Tags   []string
	}
	type input struct {
		UserEmail string
		TargetID  string
		Note      *string `json:"note_text,omitempty"`
		Inner     nested
		PageRequest
	}
	nul, bad := "a\x00b", "a\xffb"
	for _, c := range []struct {
		name  string
		in    any
		field string // "" means accepted
	}{
		{"OK", input{UserEmail: "a@b.c", TargetID: "x", Note: new(string), Inner: nested{Labels: map[string]string{"k": "v"}}}, ""},
		{"OKNil", (*input)(nil), ""},
		{"ErrNULInField", input{UserEmail: nul}, "user_email"},
		{"ErrNULInInitialism", &input{TargetID: nul}, "target_id"},
		{"ErrInvalidUTF8", input{TargetID: bad}, "target_id"},
		{"ErrNULBehindPointer", input{Note: &nul}, "note_text"},
		{"ErrNULInMapKey", input{Inner: nested{Labels: map[string]string{nul: "v"}}}, "labels"},
		{"ErrNULInSlice", input{Inner: nested{Tags: []string{"ok", nul}}}, "tags"},
		{"ErrNULInEmbedded", input{PageRequest: PageRequest{Cursor: nul}}, "cursor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := CheckStorableFields(c.in)
			if c.field == "" {
				if err != nil {
					t.Fatalf("got %v, want nil", err)
				}
				return
			}
			if ErrorCode(err) != ECodeValidation || AsError(err).Field != c.field {
				t.Fatalf("got %v (field %q), want validation_failed on %q", err, AsError(err).Field, c.field)
			}
		})
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"UserEmail": "user_email", "TargetID": "target_id", "ID": "id", "URLPath": "url_path", "Key": "key", "PerPage": "per_page", "Sha256Sum": "sha256_sum"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
