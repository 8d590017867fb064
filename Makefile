# nvfp4-ptx: the only build entry point. Everything lands in build/ (BUILD=...).
#   make              library (static + shared), the nvfp4 command, nvfp4.pc, every kernel for every target
#   make check        CPU test suites and the SASS checker's own test (no GPU needed; what CI runs)
#   make examples     examples/*.c against the library in build/
#   make check-gpu    GPU test suite (needs an sm_90a GPU)
#   make variant NAME=n PTX_DEFINES=...   the kernels built with other tuning knobs, for NVFP4_FATBIN
#   make install PREFIX=/usr/local DESTDIR=   (also LIBDIR, INCLUDEDIR, BINDIR); make uninstall, the same
#   V=1 shows the full commands.

# Bare `make` builds `all`, whatever rule comes first below.
.DEFAULT_GOAL := all

CUDA_HOME ?= /usr/local/cuda
PTXAS ?= $(CUDA_HOME)/bin/ptxas
FATBINARY ?= $(CUDA_HOME)/bin/fatbinary
NVLINK ?= $(CUDA_HOME)/bin/nvlink
CPP := $(CC) -E -P -C -x c -undef -nostdinc
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
BUILD ?= build

V ?= 0
ifeq ($(V),0)
Q := @
say = @printf '  %-9s %s\n' $(1) $(2)
else
Q :=
say =
endif

version_part = $(shell sed -n 's/^\#define NVFP4_VERSION_$(1) \([0-9]*\)/\1/p' include/nvfp4.h)
VERSION := $(call version_part,MAJOR).$(call version_part,MINOR).$(call version_part,PATCH)
SONAME := libnvfp4.so.$(call version_part,MAJOR)

CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror=implicit-function-declaration -fPIC \
              -fvisibility=hidden -Iinclude -Ihost -Ihost/tools -Iptx -isystem $(CUDA_HOME)/include -MMD -MP $(CFLAGS)
LDLIBS := -ldl -lpthread -lm

# --- kernels: ptx/<target>/*.ptx -> (cpp) build/ptx -> (ptxas) build/cubin -> two fatbins
# Each folder under ptx/ names the target its files are assembled for. The benchmarks' measuring kernels
# (PROBE_NAMES) go into an image of their own, which the tools embed; libnvfp4's image holds the
# operations only, so an NVFP4_FATBIN of one kernel family serves that family.
PTX_TARGETS := sm90a
ptx_arch_sm90a := sm_90a
ptx_fatbin_sm90a := 90a
PROBE_NAMES := read_probe wgmma_peak
PTX_SRC := $(foreach t,$(PTX_TARGETS),$(wildcard ptx/$(t)/*.ptx))
CUBINS := $(PTX_SRC:ptx/%.ptx=$(BUILD)/cubin/%.cubin)
PROBE_CUBINS := $(filter $(foreach p,$(PROBE_NAMES),%/$(p).cubin),$(CUBINS))
LIB_CUBINS := $(filter-out $(PROBE_CUBINS),$(CUBINS))
# A fatbin holds one image per target (the driver loads only one), so each target's cubins are linked
# into one: build/cubin/<target>.cubin (the library's), build/cubin/probes-<target>.cubin. They are
# assembled in extensible whole-program mode (-ewp), which nvlink accepts and which allocates registers as
# a whole-program build does (plain relocatable -c gave the GEMV kernel 163 registers instead of 125, one
# CTA per SM instead of two).
LIB_LINKED := $(foreach t,$(PTX_TARGETS),$(BUILD)/cubin/$(t).cubin)
PROBE_LINKED := $(foreach t,$(PTX_TARGETS),$(BUILD)/cubin/probes-$(t).cubin)
FATBIN := $(BUILD)/nvfp4.fatbin
PROBE_FATBIN := $(BUILD)/probes.fatbin
target_of = $(word 1,$(subst /, ,$(1)))

# build/ptx/ is the exact PTX ptxas assembles, for people to read: cpp expands the macros (and writes the
# files a kernel source includes, gemv.ptx: gemv_entry.inc, gemv_layout.h, into build/ptx/*.d), then
# gen/ptx_lines.c puts each instruction of an expansion on a line of its own.
PTX_LINES := $(BUILD)/gen/ptx_lines
$(PTX_LINES): gen/ptx_lines.c | $(BUILD)/gen
	$(call say,CC,$@)
	$(Q)$(CC) -std=c11 -Wall -Wextra -O2 -o $@ $<

# PTX_DEFINES: extra cpp definitions for every kernel source, the tuning knobs the sources leave open (each
# says where it is defined, with its default); `make variant` below builds images with them. The build
# folder remembers the set it was built with (ptx_defines), so changing it rebuilds the kernels.
PTX_DEFINES ?=
PTX_DEFINES_STAMP := $(BUILD)/ptx_defines
$(PTX_DEFINES_STAMP): FORCE | $(BUILD)
	$(Q)echo '$(PTX_DEFINES)' | cmp -s - $@ || echo '$(PTX_DEFINES)' > $@

# A source takes its directives and target-specific macros from <target.inc>, which -I finds in its folder:
# ptx/sm80/ files that include a ptx/sm90a/ kernel source get ptx/sm80/target.inc.
$(BUILD)/ptx/%.ptx: ptx/%.ptx $(PTX_LINES) $(PTX_DEFINES_STAMP) | $(BUILD)/ptx/sm90a $(BUILD)/ptx/sm80
	$(call say,CPP,$@)
	$(Q)$(CPP) -Iptx/$(call target_of,$*) $(PTX_DEFINES) -MMD -MP -MT $@ -MF $(@:.ptx=.d) $< -o $@.cpp && \
	  $(PTX_LINES) < $@.cpp > $@ && rm -f $@.cpp

# ptxas -v notes (registers, spills, shared memory) and warnings go to the build log and next to the cubin.
$(BUILD)/cubin/%.cubin: $(BUILD)/ptx/%.ptx | $(BUILD)/cubin/sm90a
	$(call say,PTXAS,$@)
	$(Q)$(PTXAS) -ewp -arch=$(ptx_arch_$(call target_of,$*)) -v $< -o $@ 2> $(@:.cubin=.ptxas.txt); \
	  status=$$?; sed 's/^/            /' $(@:.cubin=.ptxas.txt); exit $$status

# A static pattern rule: as a plain pattern rule it also matched build/cubin/sm90a/gemv.cubin (stem
# sm90a/gemv, no prerequisites), so with build/ptx removed an edited kernel was never reassembled.
.SECONDEXPANSION:
$(LIB_LINKED): $(BUILD)/cubin/%.cubin: $$(filter $(BUILD)/cubin/%/$$(percent),$(LIB_CUBINS))
	$(call say,NVLINK,$@)
	$(Q)$(NVLINK) -arch=$(ptx_arch_$*) $^ -o $@

$(PROBE_LINKED): $(BUILD)/cubin/probes-%.cubin: $$(filter $(BUILD)/cubin/%/$$(percent),$(PROBE_CUBINS))
	$(call say,NVLINK,$@)
	$(Q)$(NVLINK) -arch=$(ptx_arch_$*) $^ -o $@

percent := %

# One --image3 per target, of build/cubin/<$(1)><target>.cubin.
fatbin_images = $(foreach t,$(PTX_TARGETS),--image3=kind=elf,sm=$(ptx_fatbin_$(t)),file=$(BUILD)/cubin/$(1)$(t).cubin)

$(FATBIN): $(LIB_LINKED)
	$(call say,FATBIN,$@)
	$(Q)$(FATBINARY) --create=$@ -64 $(call fatbin_images,)

$(PROBE_FATBIN): $(PROBE_LINKED)
	$(call say,FATBIN,$@)
	$(Q)$(FATBINARY) --create=$@ -64 $(call fatbin_images,probes-)

# --- the portable image: ptx/sm80/*.ptx (.target sm_80: no wgmma, TMA, setmaxnreg or clusters), a fatbin of
# its own, which the host loads on every GPU but sm_90 (and on sm_90 with NVFP4_FORCE_PORTABLE=1). It holds
# cubins for PORTABLE_ARCHS (sm_80 code runs on 8.0-8.9; sm_86 and sm_89 get code scheduled for them) and the
# same sources' PTX for sm_90 (ptx/sm90/target.inc: sm_90a's macros, griddepcontrol among them), which the
# driver JIT-compiles where no cubin fits: sm_90 (forced), sm_100, sm_120. The driver takes one image per
# module, so each target's PTX is one module: its files, each cpp'd into build/ptx/<target>/ like any other,
# joined under one set of directives (their first file's; the others' .version / .target / .address_size
# lines dropped). ptxas makes every cubin from the sm_80 module (whole program: no link step), and assembles
# the sm_90 one for PORTABLE_JIT_ARCHS too, unembedded, as the nearest check here that the driver will accept
# it on those GPUs (make check runs it).
PORTABLE_SRC := $(wildcard ptx/sm80/*.ptx)
PORTABLE_PTX := $(BUILD)/ptx/portable.ptx
PORTABLE_JIT_PTX := $(BUILD)/ptx/portable-sm90.ptx
PORTABLE_ARCHS := sm_80 sm_86 sm_89
PORTABLE_JIT_ARCHS := sm_90 sm_100 sm_120
PORTABLE_CUBINS := $(PORTABLE_ARCHS:%=$(BUILD)/cubin/portable-%.cubin)
PORTABLE_JIT_CHECKS := $(PORTABLE_JIT_ARCHS:%=$(BUILD)/cubin/portable-jit-%.cubin)
PORTABLE_FATBIN := $(BUILD)/nvfp4_portable.fatbin
join_ptx = awk 'FNR == 1 { file++ } file > 1 && /^\.(version|target|address_size) / { next } { print }' $^ > $@

$(BUILD)/ptx/sm90/%.ptx: ptx/sm80/%.ptx $(PTX_LINES) $(PTX_DEFINES_STAMP) | $(BUILD)/ptx/sm90
	$(call say,CPP,$@)
	$(Q)$(CPP) -Iptx/sm90 $(PTX_DEFINES) -MMD -MP -MT $@ -MF $(@:.ptx=.d) $< -o $@.cpp && \
	  $(PTX_LINES) < $@.cpp > $@ && rm -f $@.cpp

$(PORTABLE_PTX): $(PORTABLE_SRC:ptx/%.ptx=$(BUILD)/ptx/%.ptx)
	$(call say,JOIN,$@)
	$(Q)$(join_ptx)

$(PORTABLE_JIT_PTX): $(PORTABLE_SRC:ptx/sm80/%.ptx=$(BUILD)/ptx/sm90/%.ptx)
	$(call say,JOIN,$@)
	$(Q)$(join_ptx)

$(BUILD)/cubin/portable-jit-%.cubin: $(PORTABLE_JIT_PTX) | $(BUILD)/cubin
	$(call say,PTXAS,$@)
	$(Q)$(PTXAS) -arch=$* -v $< -o $@ 2> $(@:.cubin=.ptxas.txt); \
	  status=$$?; sed 's/^/            /' $(@:.cubin=.ptxas.txt); exit $$status

$(BUILD)/cubin/portable-%.cubin: $(PORTABLE_PTX) | $(BUILD)/cubin
	$(call say,PTXAS,$@)
	$(Q)$(PTXAS) -arch=$* -v $< -o $@ 2> $(@:.cubin=.ptxas.txt); \
	  status=$$?; sed 's/^/            /' $(@:.cubin=.ptxas.txt); exit $$status

$(PORTABLE_FATBIN): $(PORTABLE_CUBINS) $(PORTABLE_JIT_PTX)
	$(call say,FATBIN,$@)
	$(Q)$(FATBINARY) --create=$@ -64 $(foreach a,$(PORTABLE_ARCHS),--image3=kind=elf,sm=$(a:sm_%=%),file=$(BUILD)/cubin/portable-$(a).cubin) \
	  --image3=kind=ptx,sm=90,file=$(PORTABLE_JIT_PTX)

# --- libnvfp4
# The folders are the lists: host/ is libnvfp4; host/tools/ what is not (the float64 reference, test data,
# verification and benchmarks, which the tests share with the nvfp4 command, and the command itself).
LIB_SRC := $(wildcard host/*.c)
CLI_SRC := $(wildcard host/tools/cli*.c)
TOOLS_SRC := $(filter-out $(CLI_SRC),$(wildcard host/tools/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/embed_fatbin.o $(BUILD)/obj/gen/embed_portable.o
TOOLS_OBJ := $(TOOLS_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/embed_probes.o
STATIC_LIB := $(BUILD)/lib/libnvfp4.a
SHARED_LIB := $(BUILD)/lib/libnvfp4.so.$(VERSION)
TOOLS_LIB := $(BUILD)/lib/libnvfp4_tools.a
CLI := $(BUILD)/bin/nvfp4

$(BUILD)/obj/%.o: %.c | $(BUILD)/obj/host/tools $(BUILD)/obj/tests/unit $(BUILD)/obj/tests/gpu
	$(call say,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/gen/embed_fatbin.o: gen/embed_fatbin.S $(FATBIN) | $(BUILD)/obj/gen
	$(call say,EMBED,$@)
	$(Q)$(CC) -c -DFATBIN_PATH=$(FATBIN) -DFATBIN_SYMBOL=nvfp4i_fatbin $< -o $@

$(BUILD)/obj/gen/embed_portable.o: gen/embed_fatbin.S $(PORTABLE_FATBIN) | $(BUILD)/obj/gen
	$(call say,EMBED,$@)
	$(Q)$(CC) -c -DFATBIN_PATH=$(PORTABLE_FATBIN) -DFATBIN_SYMBOL=nvfp4i_portable_fatbin $< -o $@

$(BUILD)/obj/gen/embed_probes.o: gen/embed_fatbin.S $(PROBE_FATBIN) | $(BUILD)/obj/gen
	$(call say,EMBED,$@)
	$(Q)$(CC) -c -DFATBIN_PATH=$(PROBE_FATBIN) -DFATBIN_SYMBOL=nvfp4i_probes_fatbin $< -o $@

$(STATIC_LIB): $(LIB_OBJ) | $(BUILD)/lib
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(TOOLS_LIB): $(TOOLS_OBJ) | $(BUILD)/lib
	$(call say,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SHARED_LIB): $(LIB_OBJ) | $(BUILD)/lib
	$(call say,LD,$@)
	$(Q)$(CC) -shared -Wl,-soname,$(SONAME) -Wl,--no-undefined -o $@ $^ $(LDLIBS)
	$(Q)ln -sf $(notdir $@) $(BUILD)/lib/$(SONAME) && ln -sf $(SONAME) $(BUILD)/lib/libnvfp4.so

$(CLI): $(CLI_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLS_LIB) $(STATIC_LIB) | $(BUILD)/bin
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $^ $(LDLIBS)

# --- tests: Check linked statically, so the GPU binary runs on a machine without the Check library
CHECK_LIBDIR := $(shell pkg-config --variable=libdir check 2>/dev/null || echo /usr/lib/x86_64-linux-gnu)
CHECK_LIBS := $(CHECK_LIBDIR)/libcheck.a $(CHECK_LIBDIR)/libsubunit.a -lrt
UNIT_SRC := $(wildcard tests/unit/*.c)
GPU_SRC := $(wildcard tests/gpu/*.c)
UNIT_TESTS := $(BUILD)/tests/unit_tests
GPU_TESTS := $(BUILD)/tests/gpu_tests

$(UNIT_TESTS): $(UNIT_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLS_LIB) $(STATIC_LIB) | $(BUILD)/tests
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

$(GPU_TESTS): $(GPU_SRC:%.c=$(BUILD)/obj/%.o) $(TOOLS_LIB) $(STATIC_LIB) | $(BUILD)/tests
	$(call say,LD,$@)
	$(Q)$(CC) -o $@ $^ $(CHECK_LIBS) $(LDLIBS)

# nvfp4.pc holds the install paths. Their values live in a stamp rewritten only when they change, so
# `make install PREFIX=/opt/x` after a plain `make` regenerates the .pc for /opt/x.
PC_VARS := $(PREFIX) $(LIBDIR) $(INCLUDEDIR) $(VERSION)
# A libcuda.so.1 without a GPU behind it, for the CPU tests that run the library and the command end to end.
FAKE_LIBCUDA := $(BUILD)/tests/libcuda_fake.so
$(FAKE_LIBCUDA): tests/fake/libcuda.c ptx/sm90a/gemv_layout.h ptx/sm90a/grouped_gemm_layout.h \
                 ptx/sm90a/dequantize_layout.h ptx/sm90a/quantize_layout.h ptx/sm90a/scales_relayout_layout.h \
                 | $(BUILD)/tests
	$(call say,LD,$@)
	$(Q)$(CC) -std=c11 -D_GNU_SOURCE -Wall -Wextra -fPIC -Iptx -isystem $(CUDA_HOME)/include $(CFLAGS) -shared -o $@ $<

$(BUILD)/nvfp4.pc.vars: FORCE | $(BUILD)
	$(Q)echo '$(PC_VARS)' | cmp -s - $@ || echo '$(PC_VARS)' > $@

$(BUILD)/nvfp4.pc: nvfp4.pc.in $(BUILD)/nvfp4.pc.vars
	$(call say,GEN,$@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(VERSION)|' $< > $@

# --- examples/: built against the build tree here; CI builds them against an installed copy too
EXAMPLES := $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
EXAMPLE_CFLAGS := -std=c11 -Wall -Wextra -Iinclude -isystem $(CUDA_HOME)/include $(CFLAGS)

$(BUILD)/examples/%: examples/%.c examples/common.h include/nvfp4.h $(STATIC_LIB) | $(BUILD)/examples
	$(call say,LD,$@)
	$(Q)$(CC) $(EXAMPLE_CFLAGS) -o $@ $< $(STATIC_LIB) $(LDLIBS)

examples: $(EXAMPLES)

# --- a kernel variant, for timing beside the library's own kernels: both images built from the same sources
# with PTX_DEFINES, in a build folder of its own; NVFP4_FATBIN=build/variants/NAME/nvfp4.fatbin (or
# nvfp4_portable.fatbin with NVFP4_FORCE_PORTABLE=1) makes any program load it in place of the embedded one.
#   make variant NAME=pf256 PTX_DEFINES='-DGG_L2_PREFETCH=.L2::256B'
variant:
	$(Q)test -n "$(NAME)" || { echo 'make variant: NAME=<name> names the variant (build/variants/<name>/)' >&2; exit 2; }
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/variants/$(NAME) PTX_DEFINES='$(PTX_DEFINES)' \
	  $(BUILD)/variants/$(NAME)/nvfp4.fatbin $(BUILD)/variants/$(NAME)/nvfp4_portable.fatbin
	@echo "  VARIANT   $(BUILD)/variants/$(NAME)/nvfp4.fatbin, nvfp4_portable.fatbin ($(PTX_DEFINES))"

# Keep the preprocessed PTX: it is the exact text ptxas assembled, for people tuning kernels.
.SECONDARY:

.PHONY: all check check-gpu tests examples install uninstall clean variant FORCE
all: $(STATIC_LIB) $(SHARED_LIB) $(CLI) $(BUILD)/nvfp4.pc
tests: $(UNIT_TESTS) $(GPU_TESTS) $(FAKE_LIBCUDA)

check: all $(UNIT_TESTS) $(GPU_TESTS) $(FAKE_LIBCUDA) $(PORTABLE_JIT_CHECKS)
	$(Q)NVFP4_TEST_BUILD=$(BUILD) $(UNIT_TESTS)
	$(Q)sh tests/unit/check-loads-before-wait.sh

check-gpu: all $(GPU_TESTS)
	$(Q)CK_FORK=no NVFP4_TEST_BUILD=$(BUILD) $(GPU_TESTS)

install: all
	install -d $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(BINDIR)
	install -m 644 include/nvfp4.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 644 $(STATIC_LIB) $(DESTDIR)$(LIBDIR)/
	install -m 755 $(SHARED_LIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHARED_LIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libnvfp4.so
	install -m 644 $(BUILD)/nvfp4.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 755 $(CLI) $(DESTDIR)$(BINDIR)/

uninstall:
	rm -f $(DESTDIR)$(INCLUDEDIR)/nvfp4.h $(DESTDIR)$(LIBDIR)/$(notdir $(STATIC_LIB)) \
	  $(DESTDIR)$(LIBDIR)/$(notdir $(SHARED_LIB)) $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libnvfp4.so \
	  $(DESTDIR)$(PKGCONFIGDIR)/nvfp4.pc $(DESTDIR)$(BINDIR)/nvfp4

clean:
	rm -rf $(BUILD)

DIRS := $(BUILD) $(BUILD)/gen $(BUILD)/ptx/sm90a $(BUILD)/ptx/sm80 $(BUILD)/ptx/sm90 \
        $(BUILD)/cubin $(BUILD)/cubin/sm90a \
        $(BUILD)/obj/host/tools $(BUILD)/obj/gen \
        $(BUILD)/obj/tests/unit $(BUILD)/obj/tests/gpu $(BUILD)/lib $(BUILD)/bin $(BUILD)/tests $(BUILD)/examples
$(DIRS):
	$(Q)mkdir -p $@

-include $(shell find $(BUILD)/obj $(BUILD)/ptx -name '*.d' 2>/dev/null)
