// Package password hashes account passwords with argon2id and decides which
// passwords an account may use (docs/design.md §8).
//
// Hashing is deliberately expensive, so a Hasher bounds how many hashes run
// at once: a flood of logins queues for a slot instead of exhausting memory,
// and a caller that queues too long is told to retry (rate_limited) rather
// than piling up.
package password
