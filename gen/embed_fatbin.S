/* Embeds the fatbin (FATBIN_PATH, set by the Makefile) into libnvfp4 as nvfp4i_fatbin / nvfp4i_fatbin_size.
 * cuModuleLoadData wants the image 8-byte aligned; 64 keeps it on its own cache lines. */
#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)

        .section .rodata.nvfp4i_fatbin, "a"
        .balign 64
        .globl nvfp4i_fatbin
        .hidden nvfp4i_fatbin
        .type nvfp4i_fatbin, @object
nvfp4i_fatbin:
        .incbin STRINGIFY(FATBIN_PATH)
nvfp4i_fatbin_end:
        .size nvfp4i_fatbin, nvfp4i_fatbin_end - nvfp4i_fatbin

        .balign 8
        .globl nvfp4i_fatbin_size
        .hidden nvfp4i_fatbin_size
        .type nvfp4i_fatbin_size, @object
nvfp4i_fatbin_size:
        .quad nvfp4i_fatbin_end - nvfp4i_fatbin
        .size nvfp4i_fatbin_size, 8

        .section .note.GNU-stack, "", @progbits
