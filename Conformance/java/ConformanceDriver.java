// Conformance driver for OkHttp 3.13's DiskLruCache: speaks the line protocol of Conformance/README.md
// on stdin/stdout. It lives in okhttp3.internal.cache to reach the package-private constructor, so cleanup
// jobs go to a queue and run only on `runCleanup` (like OkHttp's own TestExecutor).
package okhttp3.internal.cache;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import okhttp3.internal.io.FileSystem;
import okio.BufferedSink;
import okio.Okio;
import okio.Source;

public final class ConformanceDriver {
  /** Thrown for malformed commands: a harness bug, not a cache behaviour. */
  static final class ProtocolError extends RuntimeException {
    ProtocolError(String message) { super(message); }
  }

  private final ArrayDeque<Runnable> queuedJobs = new ArrayDeque<>();
  private final Executor queuedExecutor = queuedJobs::add;
  /** Every instance opened since the last reset; the last one is the current cache. */
  private final List<DiskLruCache> caches = new ArrayList<>();
  private final Map<String, DiskLruCache.Editor> editors = new HashMap<>();
  private final Map<String, DiskLruCache.Snapshot> snapshots = new HashMap<>();
  private boolean faultActive;

  public static void main(String[] args) throws IOException {
    // Logs from Platform (corruption warnings) go to stderr; stdout carries replies only.
    PrintStream out = new PrintStream(System.out, false, "UTF-8");
    System.setOut(new PrintStream(System.err, true, "UTF-8"));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    ConformanceDriver driver = new ConformanceDriver();
    for (String line; (line = in.readLine()) != null; ) {
      if (line.equals("quit")) break;
      out.println(driver.handle(line));
      out.flush();
    }
    driver.reset();
  }

  String handle(String line) {
    String[] t = line.split(" ", -1);
    try {
      return execute(t);
    } catch (ProtocolError e) {
      return "error protocol " + e.getMessage();
    } catch (IllegalArgumentException e) {
      String m = String.valueOf(e.getMessage());
      return "error " + (m.startsWith("keys must match regex") ? "invalidKey " : "invalidArgument ") + oneLine(m);
    } catch (IllegalStateException e) {
      String m = String.valueOf(e.getMessage());
      String kind = m.equals("cache is closed") ? "closed"
          : m.startsWith("Newly created entry") ? "incompleteEntry" : "editorFinished";
      return "error " + kind + " " + oneLine(m);
    } catch (IOException e) {
      return "error io " + oneLine(e.toString());
    } catch (RuntimeException e) {
      return "error internal " + oneLine(e.toString());
    }
  }

  private String execute(String[] t) throws IOException {
    switch (t[0]) {
      case "hello": return "ok okhttp";
      case "open": return open(t);
      case "reset": reset(); return "ok";
      case "close": cache().close(); return "ok";
      case "edit": {
        arity(t, 3);
        DiskLruCache.Editor e = cache().edit(key(t[2]));
        if (e == null) return "null";
        editors.put(t[1], e);
        return "ok";
      }
      case "write": {
        arity(t, 4);
        DiskLruCache.Editor e = editor(t[1]);
        try (BufferedSink sink = Okio.buffer(e.newSink(index(t[2])))) { sink.write(unhex(t[3])); }
        return "ok";
      }
      case "editorRead": {
        arity(t, 3);
        Source s = editor(t[1]).newSource(index(t[2]));
        return s == null ? "null" : "ok " + hex(readAll(s));
      }
      case "commit": arity(t, 2); editor(t[1]).commit(); return "ok";
      case "abort": arity(t, 2); editor(t[1]).abort(); return "ok";
      case "abortUnlessCommitted": arity(t, 2); editor(t[1]).abortUnlessCommitted(); return "ok";
      case "get": {
        arity(t, 2);
        try (DiskLruCache.Snapshot s = cache().get(key(t[1]))) {
          return s == null ? "null" : "ok " + values(s);
        }
      }
      case "snapshot": {
        arity(t, 3);
        DiskLruCache.Snapshot s = cache().get(key(t[2]));
        if (s == null) return "null";
        snapshots.put(t[1], s);
        StringBuilder r = new StringBuilder("ok");
        for (int i = 0; i < cache().valueCount; i++) r.append(' ').append(s.getLength(i));
        return r.toString();
      }
      case "snapshotRead": arity(t, 3); return "ok " + hex(readAll(snapshot(t[1]).getSource(index(t[2]))));
      case "snapshotEdit": {
        arity(t, 3);
        DiskLruCache.Editor e = snapshot(t[1]).edit();
        if (e == null) return "null";
        editors.put(t[2], e);
        return "ok";
      }
      case "snapshotClose": arity(t, 2); snapshot(t[1]).close(); snapshots.remove(t[1]); return "ok";
      case "remove": arity(t, 2); return "ok " + cache().remove(key(t[1]));
      case "size": return "ok " + cache().size();
      case "setMaxSize": arity(t, 2); cache().setMaxSize(Long.parseLong(t[1])); return "ok";
      case "flush": cache().flush(); return "ok";
      case "evictAll": cache().evictAll(); return "ok";
      case "journalFault": arity(t, 2); journalFault(onOff(t[1])); return "ok";
      case "runCleanup": {
        while (!queuedJobs.isEmpty()) queuedJobs.poll().run();
        return "ok";
      }
      case "snapshots": {
        StringBuilder r = new StringBuilder("ok");
        for (Iterator<DiskLruCache.Snapshot> it = cache().snapshots(); it.hasNext(); ) {
          try (DiskLruCache.Snapshot s = it.next()) {
            r.append(' ').append(encodeKey(s.key())).append('=').append(values(s).replace(' ', ','));
          }
        }
        return r.toString();
      }
      default: throw new ProtocolError("unknown command " + t[0]);
    }
  }

  private String open(String[] t) throws IOException {
    if (t.length < 5) throw new ProtocolError("usage: open <dir> <appVersion> <valueCount> <maxSize> [option=value...]");
    File dir = new File(t[1]);
    int appVersion = Integer.parseInt(t[2]);
    int valueCount = Integer.parseInt(t[3]);
    long maxSize = Long.parseLong(t[4]);
    // Options (locking=..., durability=...) are extensions of the Swift cache; OkHttp has no equivalent.
    // create() performs the argument checks of the public API; the instance it builds does no I/O.
    DiskLruCache.create(FileSystem.SYSTEM, dir, appVersion, valueCount, maxSize);
    DiskLruCache cache = new DiskLruCache(FileSystem.SYSTEM, dir, appVersion, valueCount, maxSize, queuedExecutor);
    cache.initialize(); // eager, like JW's open() and the Swift cache
    caches.add(cache);
    return "ok";
  }

  /**
   * Stands in for OkHttp's FaultyFileSystem.setFaultyWrite(journalFile, ...): caps this process's file size
   * (RLIMIT_FSIZE, soft limit) at the journal's current length, so every append to it fails with EFBIG while
   * the small value files still write. HotSpot ignores SIGXFSZ, so the failure arrives as an IOException.
   */
  private void journalFault(boolean on) throws IOException {
    String limit = on ? String.valueOf(new File(cache().directory, "journal").length()) : "unlimited";
    Process p = new ProcessBuilder("prlimit", "--pid", String.valueOf(ProcessHandle.current().pid()),
        "--fsize=" + limit + ":").redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) throw new IOException("prlimit failed: " + output.trim());
    } catch (InterruptedException e) {
      throw new IOException("interrupted while running prlimit", e);
    }
    faultActive = on;
  }

  private static boolean onOff(String token) {
    if (token.equals("on")) return true;
    if (token.equals("off")) return false;
    throw new ProtocolError("expected on or off, got " + token);
  }

  private void reset() {
    if (faultActive) {
      try { journalFault(false); } catch (IOException | RuntimeException ignored) { }
    }
    for (DiskLruCache.Snapshot s : snapshots.values()) s.close();
    for (DiskLruCache c : caches) {
      try { c.close(); } catch (IOException | RuntimeException ignored) { }
    }
    snapshots.clear();
    editors.clear();
    caches.clear();
    queuedJobs.clear();
  }

  private DiskLruCache cache() {
    if (caches.isEmpty()) throw new ProtocolError("no cache is open");
    return caches.get(caches.size() - 1);
  }

  private DiskLruCache.Editor editor(String handle) {
    DiskLruCache.Editor e = editors.get(handle);
    if (e == null) throw new ProtocolError("unknown editor " + handle);
    return e;
  }

  private DiskLruCache.Snapshot snapshot(String handle) {
    DiskLruCache.Snapshot s = snapshots.get(handle);
    if (s == null) throw new ProtocolError("unknown snapshot " + handle);
    return s;
  }

  private String values(DiskLruCache.Snapshot s) throws IOException {
    StringBuilder r = new StringBuilder();
    for (int i = 0; i < cache().valueCount; i++) {
      if (i > 0) r.append(' ');
      r.append(s.getLength(i)).append(':').append(hex(readAll(s.getSource(i))));
    }
    return r.toString();
  }

  private static byte[] readAll(Source source) throws IOException {
    return Okio.buffer(source).readByteArray();
  }

  private static void arity(String[] t, int n) {
    if (t.length != n) throw new ProtocolError(t[0] + " takes " + (n - 1) + " arguments");
  }

  private static int index(String s) { return Integer.parseInt(s); }

  static String hex(byte[] b) {
    if (b.length == 0) return "-";
    StringBuilder r = new StringBuilder();
    for (byte x : b) r.append(String.format("%02x", x & 0xff));
    return r.toString();
  }

  static byte[] unhex(String s) {
    if (s.equals("-")) return new byte[0];
    if (s.length() % 2 != 0) throw new ProtocolError("odd hex length");
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return b;
  }

  /** Keys are percent-encoded so that spaces, CR and LF fit on one line; `""` is the empty key. */
  static String key(String token) {
    if (token.equals("\"\"")) return "";
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    for (int i = 0; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c == '%') {
        b.write(Integer.parseInt(token.substring(i + 1, i + 3), 16));
        i += 2;
      } else {
        b.write(c);
      }
    }
    return new String(b.toByteArray(), StandardCharsets.UTF_8);
  }

  static String encodeKey(String key) {
    if (key.isEmpty()) return "\"\"";
    StringBuilder r = new StringBuilder();
    for (byte x : key.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xff;
      if (c > 0x20 && c < 0x7f && c != '%' && c != '"' && c != '=' && c != ',') r.append((char) c);
      else r.append(String.format("%%%02X", c));
    }
    return r.toString();
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ');
  }
}
