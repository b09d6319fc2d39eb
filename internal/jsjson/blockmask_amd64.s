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

// func skipBlocksAVX2(p *byte, n int, carry uint64) (k int, next uint64, esc, closed bool)
//
// skipBlocks in AVX2: 64 bytes a block, as two 32-byte halves. For each
// block it finds the quotes, backslashes, control characters and the
// characters a short escape may name that are frequent (" \ / n r t),
// then the escaped characters (escapedBits: the carry of an addition sent
// through each run of backslashes that starts on an odd bit). It stops at
// the first block with an unescaped quote, a control character or an
// escaped character other than those, and returns its offset and carry.
// When that block closes the string (an unescaped quote with no control
// character and no other escape before it), closed is set and k is the
// offset after the quote, with esc telling of backslashes before it: the
// masks are at hand, and the string's end needs no second look. A block
// of plain text (no quote, backslash or control character, and no carry)
// is passed on three compares a half, without the masks.
// skipBytes are the bytes skipBlocksAVX2 compares with, each broadcast
// from memory in one instruction (it runs once a long string).
DATA skipBytes<>+0(SB)/8, $0x002F72746E1F5C22
GLOBL skipBytes<>(SB), RODATA|NOPTR, $8

TEXT ·skipBlocksAVX2(SB), NOSPLIT, $0-42
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), DI
	MOVQ carry+16(FP), CX
	XORQ BX, BX // offset of the current block
	XORQ R12, R12 // the backslashes of the blocks skipped
	VPBROADCASTB skipBytes<>+0(SB), Y8 // '"'
	VPBROADCASTB skipBytes<>+1(SB), Y9 // '\\'
	VPBROADCASTB skipBytes<>+2(SB), Y10 // the largest control character
	VPBROADCASTB skipBytes<>+3(SB), Y11 // 'n'
	VPBROADCASTB skipBytes<>+4(SB), Y12 // 't'
	VPBROADCASTB skipBytes<>+5(SB), Y13 // 'r'
	VPBROADCASTB skipBytes<>+6(SB), Y14 // '/'
	MOVQ $0x5555555555555555, R15 // the even bits

loop:
	LEAQ 64(BX), AX
	CMPQ AX, DI
	JGT done
	VMOVDQU (SI)(BX*1), Y0
	VMOVDQU 32(SI)(BX*1), Y1
	VPCMPEQB Y8, Y0, Y2
	VPCMPEQB Y8, Y1, Y3
	VPCMPEQB Y9, Y0, Y4
	VPCMPEQB Y9, Y1, Y5

	// a block of plain text (no quote, backslash nor control character,
	// not escaped by the last) is skipped on these compares alone
	TESTQ CX, CX
	JNZ masks
	VPMAXUB Y10, Y0, Y6
	VPMAXUB Y10, Y1, Y7
	VPCMPEQB Y10, Y6, Y6
	VPCMPEQB Y10, Y7, Y7
	VPOR Y7, Y6, Y6
	VPOR Y2, Y6, Y6
	VPOR Y3, Y6, Y6
	VPOR Y4, Y6, Y6
	VPOR Y5, Y6, Y6
	VPTEST Y6, Y6
	JNZ masks
	ADDQ $64, BX
	JMP loop

masks:
	// quotes: R8
	VPMOVMSKB Y2, R8
	VPMOVMSKB Y3, AX
	SHLQ $32, AX
	ORQ AX, R8

	// backslashes: R9
	VPMOVMSKB Y4, R9
	VPMOVMSKB Y5, AX
	SHLQ $32, AX
	ORQ AX, R9

	// characters a short escape may name: R11
	VPOR Y2, Y4, Y4
	VPOR Y3, Y5, Y5
	VPCMPEQB Y11, Y0, Y6
	VPOR Y6, Y4, Y4
	VPCMPEQB Y12, Y0, Y6
	VPOR Y6, Y4, Y4
	VPCMPEQB Y13, Y0, Y6
	VPOR Y6, Y4, Y4
	VPCMPEQB Y14, Y0, Y6
	VPOR Y6, Y4, Y4
	VPCMPEQB Y11, Y1, Y6
	VPOR Y6, Y5, Y5
	VPCMPEQB Y12, Y1, Y6
	VPOR Y6, Y5, Y5
	VPCMPEQB Y13, Y1, Y6
	VPOR Y6, Y5, Y5
	VPCMPEQB Y14, Y1, Y6
	VPOR Y6, Y5, Y5
	VPMOVMSKB Y4, R11
	VPMOVMSKB Y5, AX
	SHLQ $32, AX
	ORQ AX, R11

	// control characters (max(c, 0x1F) == 0x1F): R10
	VPMAXUB Y10, Y0, Y6
	VPCMPEQB Y10, Y6, Y6
	VPMAXUB Y10, Y1, Y7
	VPCMPEQB Y10, Y7, Y7
	VPMOVMSKB Y6, R10
	VPMOVMSKB Y7, AX
	SHLQ $32, AX
	ORQ AX, R10

	// escaped characters: R13; the next block's carry: DX
	MOVQ R9, R14
	MOVQ CX, AX
	NOTQ AX
	ANDQ AX, R14 // bs &^ carry
	MOVQ R14, DX
	SHLQ $1, DX
	ORQ CX, DX // follows
	MOVQ R15, AX
	ORQ DX, AX
	NOTQ AX
	ANDQ R14, AX // bs &^ even &^ follows
	ADDQ R14, AX // seq
	SETCS R14
	SHLQ $1, AX
	XORQ R15, AX
	ANDQ DX, AX // escaped
	MOVQ AX, R13
	MOVBQZX R14, DX

	// stop at an unescaped quote, a control character or another escape
	MOVQ R13, AX
	NOTQ AX
	ANDQ R8, AX // q &^ escaped
	ORQ R10, AX
	MOVQ R11, R14
	NOTQ R14
	ANDQ R13, R14
	ORQ R14, AX
	JNZ stopped

	ORQ R9, R12
	MOVQ DX, CX
	ADDQ $64, BX
	JMP loop

stopped:
	// in: the bits before the first unescaped quote, if any
	MOVQ R13, AX
	NOTQ AX
	ANDQ R8, AX // q &^ escaped
	JZ done
	LEAQ -1(AX), R15
	MOVQ AX, R14
	NOTQ R14
	ANDQ R14, R15 // in
	NOTQ R11
	ANDQ R13, R11 // escapes other than the frequent ones
	ORQ R10, R11
	TESTQ R15, R11
	JNZ done
	ANDQ R15, R9
	ORQ R9, R12
	BSFQ AX, AX
	LEAQ 1(BX)(AX*1), BX
	MOVB $1, closed+41(FP)
	JMP ret

done:
	MOVB $0, closed+41(FP)

ret:
	VZEROUPPER
	MOVQ BX, k+24(FP)
	MOVQ CX, next+32(FP)
	TESTQ R12, R12
	SETNE esc+40(FP)
	RET
