package dev.leap.model;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * A TorchScript archive written from source, without Python: the file {@code torch.jit.save} would
 * write for a module class with no parameters, which libtorch compiles at load ({@code
 * torch::jit::load}, DJL's {@code JniUtils.loadModule}). Entries, stored uncompressed: {@code
 * data.pkl} (the module object: class {@code __torch__.NAME}, its {@code training} flag set; pickle
 * protocol 2), {@code constants.pkl} (an empty tuple), {@code version} ({@value #VERSION}) and
 * {@code code/__torch__.py} (the source). Leap's own scripts ({@code FusedDecode}, {@code
 * Fp16Gemm}) and the bench's kernel timings are written this way.
 */
public final class TorchScriptArchive {
  /** Archive format version written (libtorch reads 1 to 10; 3 is the oldest without upgraders). */
  public static final String VERSION = "3";

  private TorchScriptArchive() {}

  /**
   * The archive of class {@code name} (a Python identifier, defined in {@code source}) with
   * TorchScript source {@code source}.
   */
  public static byte[] of(String name, String source) {
    if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
      throw new IllegalArgumentException("not a class name: '" + name + "'");
    }
    ByteArrayOutputStream pickle = new ByteArrayOutputStream();
    // PROTO 2; GLOBAL '__torch__ NAME'; EMPTY_TUPLE; NEWOBJ; EMPTY_DICT; BINUNICODE 'training';
    // NEWTRUE; SETITEM; BUILD; STOP
    pickle.writeBytes(new byte[] {(byte) 0x80, 2, 'c'});
    pickle.writeBytes(("__torch__\n" + name + "\n").getBytes(StandardCharsets.US_ASCII));
    pickle.writeBytes(new byte[] {')', (byte) 0x81, '}', 'X', 8, 0, 0, 0});
    pickle.writeBytes("training".getBytes(StandardCharsets.US_ASCII));
    pickle.writeBytes(new byte[] {(byte) 0x88, 's', 'b', '.'});
    ByteArrayOutputStream zip = new ByteArrayOutputStream();
    try (ZipOutputStream z = new ZipOutputStream(zip)) {
      stored(z, "archive/data.pkl", pickle.toByteArray());
      stored(z, "archive/code/__torch__.py", source.getBytes(StandardCharsets.UTF_8));
      stored(z, "archive/constants.pkl", new byte[] {(byte) 0x80, 2, ')', '.'});
      stored(z, "archive/version", (VERSION + "\n").getBytes(StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return zip.toByteArray();
  }

  private static void stored(ZipOutputStream z, String name, byte[] data) throws IOException {
    ZipEntry e = new ZipEntry(name);
    e.setMethod(ZipEntry.STORED);
    e.setSize(data.length);
    CRC32 crc = new CRC32();
    crc.update(data);
    e.setCrc(crc.getValue());
    z.putNextEntry(e);
    z.write(data);
    z.closeEntry();
  }
}
