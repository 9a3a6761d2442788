; test: verify
; error: in global @bad_align: alignment 3 is not a power of two [global]
; error: in global @too_long: 3 initial bytes do not fit in its size of 2 [global]
; error: in global @reloc_out: relocation at offset 4 does not fit in its size of 8 [global]
; error: in global @shared_init: a shared global cannot have an initial value [global]
; error: in global @shared_const: a shared global cannot be const [global]
; Globals: power-of-two alignment, initial bytes and relocations that fit,
; shared globals without initial values.
global @ok const size 6 align 1 = "hi\0A\00"
global @bad_align size 8 align 3 = zeroinit
global @too_long size 2 align 1 = "abc"
global @reloc_out size 8 align 8 = zeroinit
    reloc 4 = @ok + 0
global @table size 16 align 8 = zeroinit
    reloc 0 = @ok + 0
    reloc 8 = @ok - 2
global @shared_init shared size 8 align 8 = "\01"
global @shared_const const shared size 8 align 8 = zeroinit
