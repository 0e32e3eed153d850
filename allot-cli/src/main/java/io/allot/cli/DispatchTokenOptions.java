package io.allot.cli;

import io.allot.jobs.JobEndpoint;
import io.allot.server.auth.Authenticator;
import io.allot.server.auth.GrpcAuth;
import io.allot.server.auth.Role;
import io.allot.server.auth.TokenFile;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The tokens a job endpoint ({@code allot job endpoint}) requires of its dispatchers: a dispatch stream without
 * {@code authorization: Bearer <token>} of a {@code write} token is refused before it starts (UNAUTHENTICATED, or
 * PERMISSION_DENIED for a read token). Without any token, every dispatcher is accepted.
 */
final class DispatchTokenOptions {
  @Option(names = {"-dispatcher-token", "--dispatcher-token"}, paramLabel = "TOKEN", defaultValue = "",
      description = "The token a dispatcher must send (its -endpoint-token); without it or -dispatcher-tokens any "
          + "dispatcher is accepted.")
  String token;

  @Option(names = {"-dispatcher-tokens", "--dispatcher-tokens"}, paramLabel = "FILE",
      description = "A file of dispatcher tokens, one per line 'name role token' (role write), reloaded when it "
          + "changes.")
  Path tokenFile;

  /**
   * The check, or null when no token is required.
   *
   * @throws BadInputException naming the flag (and the file's line) for a bad token or file
   */
  Authenticator authenticator() {
    return authenticator(null, null);
  }

  /**
   * {@link #authenticator()} counting refusals in {@code registry} and writing them to the event history through
   * {@code events} ({@code api-refused}, actor {@code dispatch:<address>}); either may be null (the {@code job
   * endpoint} command has no store, so there its refusals are only logged).
   */
  Authenticator authenticator(io.micrometer.core.instrument.MeterRegistry registry,
      io.allot.store.events.EventWriter events) {
    if (token.isEmpty() && tokenFile == null) {
      return null;
    }
    Authenticator.Builder b = Authenticator.builder();
    if (registry != null) {
      b.meterRegistry(registry);
    }
    if (events != null) {
      b.onRefused(new io.allot.server.events.RefusalEvents(() -> events));
    }
    try {
      b.token("dispatcher-token", Role.WRITE, token);
    } catch (IllegalArgumentException e) {
      throw new BadInputException("-dispatcher-token: " + e.getMessage());
    }
    if (tokenFile != null) {
      try {
        b.tokens(TokenFile.load(tokenFile));
      } catch (IllegalArgumentException e) {
        throw new BadInputException("-dispatcher-tokens: " + e.getMessage());
      }
    }
    return b.build();
  }

  /** {@code endpoint} checked by {@code auth} (every dispatch stream needs a write token), or as is when null. */
  static ServerServiceDefinition checked(JobEndpoint endpoint, Authenticator auth) {
    if (auth == null) {
      return endpoint.bindService();
    }
    return ServerInterceptors.intercept(endpoint,
        GrpcAuth.interceptor(auth, Authenticator.Channel.DISPATCH, method -> Role.WRITE));
  }

  /** One line on which dispatchers are accepted. */
  static String describe(Authenticator auth) {
    return auth == null ? "any dispatcher is accepted (set -dispatcher-token or -dispatcher-tokens to require one)"
        : "dispatchers need a token (" + auth.tokens().all().size() + " accepted)";
  }
}
