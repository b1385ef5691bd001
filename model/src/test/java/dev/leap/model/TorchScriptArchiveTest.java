package dev.leap.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;

class TorchScriptArchiveTest {
  private static final String SOURCE =
      """
      class Twice(Module):
        __parameters__ = []
        __buffers__ = []
        training : bool
        def forward(self: __torch__.Twice, x: Tensor) -> Tensor:
          return torch.add(x, x)
      """;

  @Test
  void libtorchCompilesAndRunsTheWrittenArchive() {
    try (NDManager m = NDManager.newBaseManager(Device.cpu())) {
      Object block = TorchScript.load(m, "Twice", SOURCE);
      try {
        NDArray x = m.create(new float[] {1.5f, -2f, 3f});
        Object[] in = TorchScript.values(1);
        in[0] = TorchScript.of(x);
        Object out = TorchScript.run(block, "forward", in);
        assertArrayEquals(new float[] {3f, -4f, 6f}, TorchScript.tensor(out, m).toFloatArray());
        TorchScript.close(out);
        TorchScript.close(in[0]);
      } finally {
        TorchScript.closeBlock(block);
      }
    }
  }

  @Test
  void theArchiveHoldsItsFourEntriesStored() throws IOException {
    byte[] zip = TorchScriptArchive.of("Twice", SOURCE);
    List<String> names = new ArrayList<>();
    try (ZipInputStream z = new ZipInputStream(new ByteArrayInputStream(zip))) {
      for (ZipEntry e; (e = z.getNextEntry()) != null; ) {
        names.add(e.getName());
        assertEquals(ZipEntry.STORED, e.getMethod(), e.getName());
        byte[] data = z.readAllBytes();
        if (e.getName().endsWith(".py")) {
          assertEquals(SOURCE, new String(data, StandardCharsets.UTF_8));
        } else if (e.getName().endsWith("version")) {
          assertEquals(TorchScriptArchive.VERSION + "\n", new String(data, StandardCharsets.UTF_8));
        }
      }
    }
    assertEquals(
        List.of(
            "archive/data.pkl",
            "archive/code/__torch__.py",
            "archive/constants.pkl",
            "archive/version"),
        names);
  }

  @Test
  void aNameThatIsNotAnIdentifierIsRefused() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> TorchScriptArchive.of("a b\n", SOURCE));
    assertTrue(e.getMessage().contains("not a class name"), e.getMessage());
  }
}
