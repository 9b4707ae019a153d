package dev.rocksdbcuckoo.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.rocksdb.CuckooHashTableConfig;
import org.rocksdb.RocksDB;

/**
 * Kafka Streams runs on our rocksdbjni (the version the build names, e.g.
 * 11.8.1-cuckoo), not on the one it was built against (10.1.3 for 4.4.0).
 */
class RocksJniOnClasspathTest {
  @Test
  void rocksDbIsOurBuild() throws Exception {
    final String wanted = System.getProperty("rocksdbjni.version");
    assertNotNull(wanted, "surefire passes rocksdbjni.version");
    final String jar =
        RocksDB.class.getProtectionDomain().getCodeSource().getLocation().toString();
    assertTrue(jar.endsWith("rocksdbjni-" + wanted + ".jar"), jar);
    assertTrue(wanted.endsWith("-cuckoo"), wanted);
    assertEquals(CuckooHashTableConfig.NAME,
        Class.forName("org.rocksdb.CuckooHashTableConfig").getField("NAME").get(null));
    // The native library is that release too.
    assertEquals(
        wanted.substring(0, wanted.indexOf("-cuckoo")), RocksDB.rocksdbVersion().toString());
  }
}
