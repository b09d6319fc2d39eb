#include "textflag.h"

// func blockMasks(b *[64]byte) (q, bs, ctl uint64)
//
// For each 16 bytes: PCMPEQB against '"' (0x22) and '\\' (0x5C); a byte is
// a control character when it is at most 0x1F (saturating subtraction of
// 0x1F leaves zero). PMOVMSKB gathers each of the three results into bits.
TEXT ·blockMasks(SB), NOSPLIT, $0-32
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
	XORQ R8, R8
	XORQ R9, R9
	MOVQ $0, CX

loop:
	MOVOU (SI)(CX*1), X0
	MOVO X0, X1
	PCMPEQB X13, X1
	MOVO X0, X2
	PCMPEQB X14, X2
	PSUBUSB X15, X0
	PCMPEQB X12, X0
	PMOVMSKB X1, AX
	SHLQ CX, AX
	ORQ AX, DX
	PMOVMSKB X2, AX
	SHLQ CX, AX
	ORQ AX, R8
	PMOVMSKB X0, AX
	SHLQ CX, AX
	ORQ AX, R9
	ADDQ $16, CX
	CMPQ CX, $64
	JB loop
	MOVQ DX, q+8(FP)
	MOVQ R8, bs+16(FP)
	MOVQ R9, ctl+24(FP)
	RET
