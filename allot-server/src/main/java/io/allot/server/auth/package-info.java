/**
 * Authentication of the API and the job dispatch streams: {@link io.allot.server.auth.Tokens} (named tokens with
 * roles), {@link io.allot.server.auth.TokenFile} (a reloadable file of them),
 * {@link io.allot.server.auth.Authenticator} (the allow/refuse decision, counted) and {@link io.allot.server.auth.GrpcAuth} (the same on gRPC).
 */
package io.allot.server.auth;
