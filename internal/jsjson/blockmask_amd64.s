#include "textflag.h"

// func blockMask(b *[64]byte) uint64
//
// For each 16 bytes: a byte is special when it equals '"' (0x22) or '\\'
// (0x5C), or when it is at most 0x1F (saturating subtraction of 0x1F
// leaves zero). PMOVMSKB gathers the 16 results into bits.
TEXT ·blockMask(SB), NOSPLIT, $0-16
	MOVQ b+0(FP), SI
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X13
	PUNPCKLQDQ X13, X13
	MOVQ $0x5C5C5C5C5C5C5C5C, AX
	MOVQ AX, X14
	PUNPCKLQDQ X14, X14
	MOVQ $0x1F1F1F1F1F1F1F1F, AX
	MOVQ AX, X15
	PUNPCKLQDQ X15, X15
	PXOR X12, X12
	XORQ DX, DX
	MOVQ $0, CX

loop:
	MOVOU (SI)(CX*1), X0
	MOVO X0, X1
	PCMPEQB X13, X1
	MOVO X0, X2
	PCMPEQB X14, X2
	POR X2, X1
	PSUBUSB X15, X0
	PCMPEQB X12, X0
	POR X0, X1
	PMOVMSKB X1, AX
	SHLQ CX, AX
	ORQ AX, DX
	ADDQ $16, CX
	CMPQ CX, $64
	JB loop
	MOVQ DX, ret+8(FP)
	RET
