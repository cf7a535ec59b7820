// Package openapi checks the server's /openapi.json with a real OpenAPI 3.1
// validator (pb33f/libopenapi and libopenapi-validator), against the built
// binary on its sandbox. It is a module of its own so that the server's
// go.mod stays free of the validator and its dependencies.
package openapi
