// Package antibot hardens signup against automated abuse (docs/design.md §8): it
// refuses addresses at disposable-mail domains and checks ALTCHA
// proof-of-work solutions, each of which may be spent only once.
package antibot
