#include "textflag.h"

// func get() Mode
TEXT ·get(SB), NOSPLIT, $8-4
	STMXCSR 0(SP)
	MOVL    0(SP), AX
	MOVL    AX, ret+0(FP)
	RET

// func set(m Mode)
TEXT ·set(SB), NOSPLIT, $0-4
	LDMXCSR m+0(FP)
	RET
