/* Embeds a fatbin (FATBIN_PATH, set by the Makefile) as FATBIN_SYMBOL and FATBIN_SYMBOL_size: libnvfp4's
 * kernels as nvfp4i_fatbin, the tools' probes as nvfp4i_probes_fatbin. cuModuleLoadData wants the image
 * 8-byte aligned; 64 keeps it on its own cache lines. */
#define STRINGIFY2(x) #x
#define STRINGIFY(x) STRINGIFY2(x)
#define CONCAT2(a, b) a##b
#define CONCAT(a, b) CONCAT2(a, b)
#define IMAGE FATBIN_SYMBOL
#define IMAGE_END CONCAT(FATBIN_SYMBOL, _end)
#define IMAGE_SIZE CONCAT(FATBIN_SYMBOL, _size)

        .section .rodata.IMAGE, "a"
        .balign 64
        .globl IMAGE
        .hidden IMAGE
        .type IMAGE, @object
IMAGE:
        .incbin STRINGIFY(FATBIN_PATH)
IMAGE_END:
        .size IMAGE, IMAGE_END - IMAGE

        .balign 8
        .globl IMAGE_SIZE
        .hidden IMAGE_SIZE
        .type IMAGE_SIZE, @object
IMAGE_SIZE:
        .quad IMAGE_END - IMAGE
        .size IMAGE_SIZE, 8

        .section .note.GNU-stack, "", @progbits
