// Package api holds the wire types of licensectl's HTTP API: the JSON
// bodies of requests and answers, shared by the server that writes them,
// the remote client (server/client) that reads them, the CLI's -o json and
// the OpenAPI document generated from them. It depends on store only, so a
// client links neither the server nor its storage.
package api
