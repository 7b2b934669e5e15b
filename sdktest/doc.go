// Package sdktest drives the client library (licensectl.dev/sdk/go) against
// a real licensectl server on a real listener. It lives in the root module
// because the library's own module must not import the server.
package sdktest
