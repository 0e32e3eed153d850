package io.allot.cli;

import io.allot.core.model.Names;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the CLI's input files: UTF-8, one entry per line. */
final class InputFiles {
  private InputFiles() {}

  /** The lines of a file (without line terminators; a final newline does not make an empty line). */
  static List<String> lines(Path file, String what) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new BadInputException(what + " file " + file + " does not exist");
    } catch (IOException e) {
      throw new BadInputException("cannot read " + what + " file " + file + ": " + e.getMessage());
    }
    String text;
    try {
      text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(java.nio.ByteBuffer.wrap(bytes))
              .toString();
    } catch (CharacterCodingException e) {
      throw new BadInputException(what + " file " + file + " is not valid UTF-8");
    }
    if (text.startsWith("\uFEFF")) {
      text = text.substring(1);
    }
    List<String> out = new ArrayList<>();
    int from = 0;
    while (from < text.length()) {
      int nl = text.indexOf('\n', from);
      String line = nl < 0 ? text.substring(from) : text.substring(from, nl);
      if (line.endsWith("\r")) {
        line = line.substring(0, line.length() - 1);
      }
      out.add(line);
      if (nl < 0) {
        break;
      }
      from = nl + 1;
    }
    return out;
  }

  /**
   * Names, one per line, verbatim. A blank line is an error naming the file and line. A duplicate
   * is dropped (the first occurrence is kept) with a warning, or is an error when {@code strict}.
   */
  static List<String> names(Path file, String what, boolean strict, PrintWriter err) {
    List<String> lines = lines(file, what);
    Map<String, Integer> seen = new LinkedHashMap<>();
    int lineNo = 0;
    for (String line : lines) {
      lineNo++;
      if (line.isBlank()) {
        throw new BadInputException(file + " line " + lineNo + ": empty " + what + " name");
      }
      Integer first = seen.putIfAbsent(line, lineNo);
      if (first != null) {
        String msg = file + " line " + lineNo + ": duplicate " + what + " " + Names.quote(line) + " (first on line " + first + ")";
        if (strict) {
          throw new BadInputException(msg);
        }
        err.println("allot: warning: " + msg + "; ignored");
      }
    }
    return new ArrayList<>(seen.keySet());
  }
}
