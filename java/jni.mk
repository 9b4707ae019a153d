# RocksJava with rocksdb-cuckoo compiled in, linked from the objects the
# RocksDB tree's own release build made. Read after RocksDB's Makefile, with
# the make arguments of that build (setup.sh java):
#
#   make -f Makefile -f plugin/cuckoo/java/jni.mk <args> cuckoo_rocksjava
#
# RocksDB's own goal, rocksdbjava, compiles the whole library a second time
# (-fPIC, into jl/) and then every JNI source in one serial compiler call;
# here the tree's objects are already position independent (setup.sh builds
# them with -fPIC), and each JNI source is an object of its own, so make -j
# compiles them in parallel. The jar holds RocksDB's classes, the plugin's
# (plugin/cuckoo/java/src/main/java: javac compiles both in java/Makefile's
# `java` goal, which also writes the JNI headers) and the native library.

# Without the native side of RocksJava's own test classes (their headers come
# from test classes that only RocksJava's test build compiles).
CUCKOO_JNI_SOURCES = $(filter-out %_test.cc java/rocksjni/testable_event_listener.cc,\
  $(ALL_JNI_NATIVE_SOURCES))
CUCKOO_JNI_OBJECTS = $(patsubst %.cc,jni-objects/%.o,$(CUCKOO_JNI_SOURCES))
CUCKOO_JNI_HEADERS = java/include/.rocksdb_cuckoo_headers
CUCKOO_JAVA_SOURCES = $(wildcard java/src/main/java/org/rocksdb/*.java \
  java/src/main/java/org/rocksdb/util/*.java \
  plugin/cuckoo/java/src/main/java/org/rocksdb/*.java)
CUCKOO_JAR = java/target/rocksdbjni-$(ROCKSDB_JAVA_VERSION)-cuckoo.jar

$(CUCKOO_JNI_HEADERS): $(CUCKOO_JAVA_SOURCES)
	$(AM_V_GEN)cd java && $(MAKE) java
	$(AM_V_at)touch $@

# -iquote: the plugin's own "table/...", "util/..." win over RocksDB's
# folders of the same names, as for its library sources (cuckoo.mk).
jni-objects/%.o: %.cc $(CUCKOO_JNI_HEADERS)
	$(AM_V_CC)mkdir -p $(@D) && $(CXX) $(CXXFLAGS) -iquote plugin/cuckoo \
	  -I./java -I./java/rocksjni $(JAVA_INCLUDE) \
	  $(ROCKSDB_PLUGIN_JNI_CXX_INCLUDEFLAGS) -fPIC -Wno-error -c $< -o $@

# The libraries the tree's objects use: JAVA_LDFLAGS lacks some that
# PLATFORM_LDFLAGS has (liburing). Not jemalloc: its shared library uses
# static TLS, which a JVM cannot dlopen ("cannot allocate memory in static
# TLS block"); RocksDB declares the jemalloc functions it uses weak, so a
# JVM started with LD_PRELOAD=libjemalloc.so.2 still gets them.
CUCKOO_JNI_LDFLAGS = $(filter-out -ljemalloc,$(JAVA_LDFLAGS) $(PLATFORM_LDFLAGS))

java/target/$(ROCKSDBJNILIB): $(CUCKOO_JNI_OBJECTS) $(LIB_OBJECTS)
	$(AM_V_CCLD)$(CXX) $(CXXFLAGS) -shared -fPIC -Wl,--no-undefined \
	  -o $@ $(CUCKOO_JNI_OBJECTS) $(LIB_OBJECTS) $(CUCKOO_JNI_LDFLAGS)

$(CUCKOO_JAR): java/target/$(ROCKSDBJNILIB) $(CUCKOO_JNI_HEADERS)
	$(AM_V_GEN)rm -f $@
	$(AM_V_at)cd java && $(JAR_CMD) -cf ../$@ HISTORY*.md
	$(AM_V_at)cd java/target && $(JAR_CMD) -uf ../../$@ $(ROCKSDBJNILIB)
	$(AM_V_at)cd java/target/classes && $(JAR_CMD) -uf ../../../$@ \
	  org/rocksdb/*.class org/rocksdb/util/*.class

.PHONY: cuckoo_rocksjava
cuckoo_rocksjava: $(CUCKOO_JAR)
	@echo "rocksdb-cuckoo: RocksJava jar $(CURDIR)/$(CUCKOO_JAR)"
