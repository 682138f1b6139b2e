#include "textflag.h"

// Vectorised float32 tanh, exp and GELU with AVX2 and FMA: the polynomials of tanhf and
// expf in num.go (Eigen's rational tanh, Cephes' exp), eight lanes at a time, tails by
// masked loads and stores. The polynomials' constants are memory operands of the
// arithmetic (eight-lane copies in vmv), not a broadcast before each use.

// Constants, each a float32 broadcast where used (the values of num.go rounded to float32).
DATA vmc<>+0(SB)/4, $0x40fcf84f // tanhHi = 7.905311107635498
DATA vmc<>+4(SB)/4, $0xc0fcf84f // tanhLo = -7.905311107635498
DATA vmc<>+8(SB)/4, $0xa59f25c0 // tp0 = -2.76076847742355e-16
DATA vmc<>+12(SB)/4, $0x2a61337e // tp1 = 2.0001879048247699e-13
DATA vmc<>+16(SB)/4, $0xaebd37ff // tp2 = -8.60467152213735e-11
DATA vmc<>+20(SB)/4, $0x335c0041 // tp3 = 5.1222970903711401e-08
DATA vmc<>+24(SB)/4, $0x3779434a // tp4 = 1.4857223571797901e-05
DATA vmc<>+28(SB)/4, $0x3a270ded // tp5 = 0.00063726192887543596
DATA vmc<>+32(SB)/4, $0x3ba059dc // tp6 = 0.0048935245589178597
DATA vmc<>+36(SB)/4, $0x35a0d3d8 // tq0 = 1.1982583946670199e-06
DATA vmc<>+40(SB)/4, $0x38f895d6 // tq1 = 0.000118534705686654
DATA vmc<>+44(SB)/4, $0x3b14aa05 // tq2 = 0.0022684346324390002
DATA vmc<>+48(SB)/4, $0x3ba059dd // tq3 = 0.0048935251855438504
DATA vmc<>+52(SB)/4, $0x42b0c0a5 // expHi = 88.376262664794893
DATA vmc<>+56(SB)/4, $0xc2ae0000 // expLo = -87
DATA vmc<>+60(SB)/4, $0x3fb8aa3b // log2e = 1.4426950408889634
DATA vmc<>+64(SB)/4, $0x3f000000 // half = 0.5
DATA vmc<>+68(SB)/4, $0x3f318000 // c1 = 0.693359375
DATA vmc<>+72(SB)/4, $0xb95e8083 // c2 = -0.00021219444
DATA vmc<>+76(SB)/4, $0x39506967 // e0 = 0.000198756915
DATA vmc<>+80(SB)/4, $0x3ab743ce // e1 = 0.0013981999507
DATA vmc<>+84(SB)/4, $0x3c088908 // e2 = 0.0083334519072999994
DATA vmc<>+88(SB)/4, $0x3d2aa9c1 // e3 = 0.041665795893999998
DATA vmc<>+92(SB)/4, $0x3e2aaaaa // e4 = 0.16666665458999999
DATA vmc<>+96(SB)/4, $0x3f000000 // e5 = 0.50000001200999999
DATA vmc<>+100(SB)/4, $0x3f800000 // one = 1
DATA vmc<>+104(SB)/4, $0x7f800000 // inf = inf
DATA vmc<>+108(SB)/4, $0x3f4c422a // geluC = 0.79788456080286541
DATA vmc<>+112(SB)/4, $0x3d372713 // geluA = 0.044714999999999998
DATA vmc<>+116(SB)/4, $0x3e095d4f // gelu3A = 0.13414499999999999
DATA vmc<>+120(SB)/4, $0xff800000 // negInf
GLOBL vmc<>(SB), RODATA|NOPTR, $124

#define VM_TANHHI vmc<>+0(SB)
#define VM_TANHLO vmc<>+4(SB)
#define VM_TP0 vmc<>+8(SB)
#define VM_TP1 vmc<>+12(SB)
#define VM_TP2 vmc<>+16(SB)
#define VM_TP3 vmc<>+20(SB)
#define VM_TP4 vmc<>+24(SB)
#define VM_TP5 vmc<>+28(SB)
#define VM_TP6 vmc<>+32(SB)
#define VM_TQ0 vmc<>+36(SB)
#define VM_TQ1 vmc<>+40(SB)
#define VM_TQ2 vmc<>+44(SB)
#define VM_TQ3 vmc<>+48(SB)
#define VM_EXPHI vmc<>+52(SB)
#define VM_EXPLO vmc<>+56(SB)
#define VM_LOG2E vmc<>+60(SB)
#define VM_HALF vmc<>+64(SB)
#define VM_C1 vmc<>+68(SB)
#define VM_C2 vmc<>+72(SB)
#define VM_E0 vmc<>+76(SB)
#define VM_E1 vmc<>+80(SB)
#define VM_E2 vmc<>+84(SB)
#define VM_E3 vmc<>+88(SB)
#define VM_E4 vmc<>+92(SB)
#define VM_E5 vmc<>+96(SB)
#define VM_ONE vmc<>+100(SB)
#define VM_INF vmc<>+104(SB)
#define VM_GELUC vmc<>+108(SB)
#define VM_GELUA vmc<>+112(SB)
#define VM_GELU3A vmc<>+116(SB)
#define VM_NEGINF vmc<>+120(SB)


// The same constants as eight-lane vectors, for memory operands (no broadcast per use).
DATA vmv<>+0(SB)/4, $0x40fcf84f
DATA vmv<>+4(SB)/4, $0x40fcf84f
DATA vmv<>+8(SB)/4, $0x40fcf84f
DATA vmv<>+12(SB)/4, $0x40fcf84f
DATA vmv<>+16(SB)/4, $0x40fcf84f
DATA vmv<>+20(SB)/4, $0x40fcf84f
DATA vmv<>+24(SB)/4, $0x40fcf84f
DATA vmv<>+28(SB)/4, $0x40fcf84f
DATA vmv<>+32(SB)/4, $0xc0fcf84f
DATA vmv<>+36(SB)/4, $0xc0fcf84f
DATA vmv<>+40(SB)/4, $0xc0fcf84f
DATA vmv<>+44(SB)/4, $0xc0fcf84f
DATA vmv<>+48(SB)/4, $0xc0fcf84f
DATA vmv<>+52(SB)/4, $0xc0fcf84f
DATA vmv<>+56(SB)/4, $0xc0fcf84f
DATA vmv<>+60(SB)/4, $0xc0fcf84f
DATA vmv<>+64(SB)/4, $0xa59f25c0
DATA vmv<>+68(SB)/4, $0xa59f25c0
DATA vmv<>+72(SB)/4, $0xa59f25c0
DATA vmv<>+76(SB)/4, $0xa59f25c0
DATA vmv<>+80(SB)/4, $0xa59f25c0
DATA vmv<>+84(SB)/4, $0xa59f25c0
DATA vmv<>+88(SB)/4, $0xa59f25c0
DATA vmv<>+92(SB)/4, $0xa59f25c0
DATA vmv<>+96(SB)/4, $0x2a61337e
DATA vmv<>+100(SB)/4, $0x2a61337e
DATA vmv<>+104(SB)/4, $0x2a61337e
DATA vmv<>+108(SB)/4, $0x2a61337e
DATA vmv<>+112(SB)/4, $0x2a61337e
DATA vmv<>+116(SB)/4, $0x2a61337e
DATA vmv<>+120(SB)/4, $0x2a61337e
DATA vmv<>+124(SB)/4, $0x2a61337e
DATA vmv<>+128(SB)/4, $0xaebd37ff
DATA vmv<>+132(SB)/4, $0xaebd37ff
DATA vmv<>+136(SB)/4, $0xaebd37ff
DATA vmv<>+140(SB)/4, $0xaebd37ff
DATA vmv<>+144(SB)/4, $0xaebd37ff
DATA vmv<>+148(SB)/4, $0xaebd37ff
DATA vmv<>+152(SB)/4, $0xaebd37ff
DATA vmv<>+156(SB)/4, $0xaebd37ff
DATA vmv<>+160(SB)/4, $0x335c0041
DATA vmv<>+164(SB)/4, $0x335c0041
DATA vmv<>+168(SB)/4, $0x335c0041
DATA vmv<>+172(SB)/4, $0x335c0041
DATA vmv<>+176(SB)/4, $0x335c0041
DATA vmv<>+180(SB)/4, $0x335c0041
DATA vmv<>+184(SB)/4, $0x335c0041
DATA vmv<>+188(SB)/4, $0x335c0041
DATA vmv<>+192(SB)/4, $0x3779434a
DATA vmv<>+196(SB)/4, $0x3779434a
DATA vmv<>+200(SB)/4, $0x3779434a
DATA vmv<>+204(SB)/4, $0x3779434a
DATA vmv<>+208(SB)/4, $0x3779434a
DATA vmv<>+212(SB)/4, $0x3779434a
DATA vmv<>+216(SB)/4, $0x3779434a
DATA vmv<>+220(SB)/4, $0x3779434a
DATA vmv<>+224(SB)/4, $0x3a270ded
DATA vmv<>+228(SB)/4, $0x3a270ded
DATA vmv<>+232(SB)/4, $0x3a270ded
DATA vmv<>+236(SB)/4, $0x3a270ded
DATA vmv<>+240(SB)/4, $0x3a270ded
DATA vmv<>+244(SB)/4, $0x3a270ded
DATA vmv<>+248(SB)/4, $0x3a270ded
DATA vmv<>+252(SB)/4, $0x3a270ded
DATA vmv<>+256(SB)/4, $0x3ba059dc
DATA vmv<>+260(SB)/4, $0x3ba059dc
DATA vmv<>+264(SB)/4, $0x3ba059dc
DATA vmv<>+268(SB)/4, $0x3ba059dc
DATA vmv<>+272(SB)/4, $0x3ba059dc
DATA vmv<>+276(SB)/4, $0x3ba059dc
DATA vmv<>+280(SB)/4, $0x3ba059dc
DATA vmv<>+284(SB)/4, $0x3ba059dc
DATA vmv<>+288(SB)/4, $0x35a0d3d8
DATA vmv<>+292(SB)/4, $0x35a0d3d8
DATA vmv<>+296(SB)/4, $0x35a0d3d8
DATA vmv<>+300(SB)/4, $0x35a0d3d8
DATA vmv<>+304(SB)/4, $0x35a0d3d8
DATA vmv<>+308(SB)/4, $0x35a0d3d8
DATA vmv<>+312(SB)/4, $0x35a0d3d8
DATA vmv<>+316(SB)/4, $0x35a0d3d8
DATA vmv<>+320(SB)/4, $0x38f895d6
DATA vmv<>+324(SB)/4, $0x38f895d6
DATA vmv<>+328(SB)/4, $0x38f895d6
DATA vmv<>+332(SB)/4, $0x38f895d6
DATA vmv<>+336(SB)/4, $0x38f895d6
DATA vmv<>+340(SB)/4, $0x38f895d6
DATA vmv<>+344(SB)/4, $0x38f895d6
DATA vmv<>+348(SB)/4, $0x38f895d6
DATA vmv<>+352(SB)/4, $0x3b14aa05
DATA vmv<>+356(SB)/4, $0x3b14aa05
DATA vmv<>+360(SB)/4, $0x3b14aa05
DATA vmv<>+364(SB)/4, $0x3b14aa05
DATA vmv<>+368(SB)/4, $0x3b14aa05
DATA vmv<>+372(SB)/4, $0x3b14aa05
DATA vmv<>+376(SB)/4, $0x3b14aa05
DATA vmv<>+380(SB)/4, $0x3b14aa05
DATA vmv<>+384(SB)/4, $0x3ba059dd
DATA vmv<>+388(SB)/4, $0x3ba059dd
DATA vmv<>+392(SB)/4, $0x3ba059dd
DATA vmv<>+396(SB)/4, $0x3ba059dd
DATA vmv<>+400(SB)/4, $0x3ba059dd
DATA vmv<>+404(SB)/4, $0x3ba059dd
DATA vmv<>+408(SB)/4, $0x3ba059dd
DATA vmv<>+412(SB)/4, $0x3ba059dd
DATA vmv<>+416(SB)/4, $0x42b0c0a5
DATA vmv<>+420(SB)/4, $0x42b0c0a5
DATA vmv<>+424(SB)/4, $0x42b0c0a5
DATA vmv<>+428(SB)/4, $0x42b0c0a5
DATA vmv<>+432(SB)/4, $0x42b0c0a5
DATA vmv<>+436(SB)/4, $0x42b0c0a5
DATA vmv<>+440(SB)/4, $0x42b0c0a5
DATA vmv<>+444(SB)/4, $0x42b0c0a5
DATA vmv<>+448(SB)/4, $0xc2ae0000
DATA vmv<>+452(SB)/4, $0xc2ae0000
DATA vmv<>+456(SB)/4, $0xc2ae0000
DATA vmv<>+460(SB)/4, $0xc2ae0000
DATA vmv<>+464(SB)/4, $0xc2ae0000
DATA vmv<>+468(SB)/4, $0xc2ae0000
DATA vmv<>+472(SB)/4, $0xc2ae0000
DATA vmv<>+476(SB)/4, $0xc2ae0000
DATA vmv<>+480(SB)/4, $0x3fb8aa3b
DATA vmv<>+484(SB)/4, $0x3fb8aa3b
DATA vmv<>+488(SB)/4, $0x3fb8aa3b
DATA vmv<>+492(SB)/4, $0x3fb8aa3b
DATA vmv<>+496(SB)/4, $0x3fb8aa3b
DATA vmv<>+500(SB)/4, $0x3fb8aa3b
DATA vmv<>+504(SB)/4, $0x3fb8aa3b
DATA vmv<>+508(SB)/4, $0x3fb8aa3b
DATA vmv<>+512(SB)/4, $0x3f000000
DATA vmv<>+516(SB)/4, $0x3f000000
DATA vmv<>+520(SB)/4, $0x3f000000
DATA vmv<>+524(SB)/4, $0x3f000000
DATA vmv<>+528(SB)/4, $0x3f000000
DATA vmv<>+532(SB)/4, $0x3f000000
DATA vmv<>+536(SB)/4, $0x3f000000
DATA vmv<>+540(SB)/4, $0x3f000000
DATA vmv<>+544(SB)/4, $0x3f318000
DATA vmv<>+548(SB)/4, $0x3f318000
DATA vmv<>+552(SB)/4, $0x3f318000
DATA vmv<>+556(SB)/4, $0x3f318000
DATA vmv<>+560(SB)/4, $0x3f318000
DATA vmv<>+564(SB)/4, $0x3f318000
DATA vmv<>+568(SB)/4, $0x3f318000
DATA vmv<>+572(SB)/4, $0x3f318000
DATA vmv<>+576(SB)/4, $0xb95e8083
DATA vmv<>+580(SB)/4, $0xb95e8083
DATA vmv<>+584(SB)/4, $0xb95e8083
DATA vmv<>+588(SB)/4, $0xb95e8083
DATA vmv<>+592(SB)/4, $0xb95e8083
DATA vmv<>+596(SB)/4, $0xb95e8083
DATA vmv<>+600(SB)/4, $0xb95e8083
DATA vmv<>+604(SB)/4, $0xb95e8083
DATA vmv<>+608(SB)/4, $0x39506967
DATA vmv<>+612(SB)/4, $0x39506967
DATA vmv<>+616(SB)/4, $0x39506967
DATA vmv<>+620(SB)/4, $0x39506967
DATA vmv<>+624(SB)/4, $0x39506967
DATA vmv<>+628(SB)/4, $0x39506967
DATA vmv<>+632(SB)/4, $0x39506967
DATA vmv<>+636(SB)/4, $0x39506967
DATA vmv<>+640(SB)/4, $0x3ab743ce
DATA vmv<>+644(SB)/4, $0x3ab743ce
DATA vmv<>+648(SB)/4, $0x3ab743ce
DATA vmv<>+652(SB)/4, $0x3ab743ce
DATA vmv<>+656(SB)/4, $0x3ab743ce
DATA vmv<>+660(SB)/4, $0x3ab743ce
DATA vmv<>+664(SB)/4, $0x3ab743ce
DATA vmv<>+668(SB)/4, $0x3ab743ce
DATA vmv<>+672(SB)/4, $0x3c088908
DATA vmv<>+676(SB)/4, $0x3c088908
DATA vmv<>+680(SB)/4, $0x3c088908
DATA vmv<>+684(SB)/4, $0x3c088908
DATA vmv<>+688(SB)/4, $0x3c088908
DATA vmv<>+692(SB)/4, $0x3c088908
DATA vmv<>+696(SB)/4, $0x3c088908
DATA vmv<>+700(SB)/4, $0x3c088908
DATA vmv<>+704(SB)/4, $0x3d2aa9c1
DATA vmv<>+708(SB)/4, $0x3d2aa9c1
DATA vmv<>+712(SB)/4, $0x3d2aa9c1
DATA vmv<>+716(SB)/4, $0x3d2aa9c1
DATA vmv<>+720(SB)/4, $0x3d2aa9c1
DATA vmv<>+724(SB)/4, $0x3d2aa9c1
DATA vmv<>+728(SB)/4, $0x3d2aa9c1
DATA vmv<>+732(SB)/4, $0x3d2aa9c1
DATA vmv<>+736(SB)/4, $0x3e2aaaaa
DATA vmv<>+740(SB)/4, $0x3e2aaaaa
DATA vmv<>+744(SB)/4, $0x3e2aaaaa
DATA vmv<>+748(SB)/4, $0x3e2aaaaa
DATA vmv<>+752(SB)/4, $0x3e2aaaaa
DATA vmv<>+756(SB)/4, $0x3e2aaaaa
DATA vmv<>+760(SB)/4, $0x3e2aaaaa
DATA vmv<>+764(SB)/4, $0x3e2aaaaa
DATA vmv<>+768(SB)/4, $0x3f000000
DATA vmv<>+772(SB)/4, $0x3f000000
DATA vmv<>+776(SB)/4, $0x3f000000
DATA vmv<>+780(SB)/4, $0x3f000000
DATA vmv<>+784(SB)/4, $0x3f000000
DATA vmv<>+788(SB)/4, $0x3f000000
DATA vmv<>+792(SB)/4, $0x3f000000
DATA vmv<>+796(SB)/4, $0x3f000000
DATA vmv<>+800(SB)/4, $0x3f800000
DATA vmv<>+804(SB)/4, $0x3f800000
DATA vmv<>+808(SB)/4, $0x3f800000
DATA vmv<>+812(SB)/4, $0x3f800000
DATA vmv<>+816(SB)/4, $0x3f800000
DATA vmv<>+820(SB)/4, $0x3f800000
DATA vmv<>+824(SB)/4, $0x3f800000
DATA vmv<>+828(SB)/4, $0x3f800000
DATA vmv<>+832(SB)/4, $0x7f800000
DATA vmv<>+836(SB)/4, $0x7f800000
DATA vmv<>+840(SB)/4, $0x7f800000
DATA vmv<>+844(SB)/4, $0x7f800000
DATA vmv<>+848(SB)/4, $0x7f800000
DATA vmv<>+852(SB)/4, $0x7f800000
DATA vmv<>+856(SB)/4, $0x7f800000
DATA vmv<>+860(SB)/4, $0x7f800000
DATA vmv<>+864(SB)/4, $0x3f4c422a
DATA vmv<>+868(SB)/4, $0x3f4c422a
DATA vmv<>+872(SB)/4, $0x3f4c422a
DATA vmv<>+876(SB)/4, $0x3f4c422a
DATA vmv<>+880(SB)/4, $0x3f4c422a
DATA vmv<>+884(SB)/4, $0x3f4c422a
DATA vmv<>+888(SB)/4, $0x3f4c422a
DATA vmv<>+892(SB)/4, $0x3f4c422a
DATA vmv<>+896(SB)/4, $0x3d372713
DATA vmv<>+900(SB)/4, $0x3d372713
DATA vmv<>+904(SB)/4, $0x3d372713
DATA vmv<>+908(SB)/4, $0x3d372713
DATA vmv<>+912(SB)/4, $0x3d372713
DATA vmv<>+916(SB)/4, $0x3d372713
DATA vmv<>+920(SB)/4, $0x3d372713
DATA vmv<>+924(SB)/4, $0x3d372713
DATA vmv<>+928(SB)/4, $0x3e095d4f
DATA vmv<>+932(SB)/4, $0x3e095d4f
DATA vmv<>+936(SB)/4, $0x3e095d4f
DATA vmv<>+940(SB)/4, $0x3e095d4f
DATA vmv<>+944(SB)/4, $0x3e095d4f
DATA vmv<>+948(SB)/4, $0x3e095d4f
DATA vmv<>+952(SB)/4, $0x3e095d4f
DATA vmv<>+956(SB)/4, $0x3e095d4f
DATA vmv<>+960(SB)/4, $0xff800000
DATA vmv<>+964(SB)/4, $0xff800000
DATA vmv<>+968(SB)/4, $0xff800000
DATA vmv<>+972(SB)/4, $0xff800000
DATA vmv<>+976(SB)/4, $0xff800000
DATA vmv<>+980(SB)/4, $0xff800000
DATA vmv<>+984(SB)/4, $0xff800000
DATA vmv<>+988(SB)/4, $0xff800000
GLOBL vmv<>(SB), RODATA|NOPTR, $992

#define VV_TANHHI vmv<>+0(SB)
#define VV_TANHLO vmv<>+32(SB)
#define VV_TP0 vmv<>+64(SB)
#define VV_TP1 vmv<>+96(SB)
#define VV_TP2 vmv<>+128(SB)
#define VV_TP3 vmv<>+160(SB)
#define VV_TP4 vmv<>+192(SB)
#define VV_TP5 vmv<>+224(SB)
#define VV_TP6 vmv<>+256(SB)
#define VV_TQ0 vmv<>+288(SB)
#define VV_TQ1 vmv<>+320(SB)
#define VV_TQ2 vmv<>+352(SB)
#define VV_TQ3 vmv<>+384(SB)
#define VV_EXPHI vmv<>+416(SB)
#define VV_EXPLO vmv<>+448(SB)
#define VV_LOG2E vmv<>+480(SB)
#define VV_HALF vmv<>+512(SB)
#define VV_C1 vmv<>+544(SB)
#define VV_C2 vmv<>+576(SB)
#define VV_E0 vmv<>+608(SB)
#define VV_E1 vmv<>+640(SB)
#define VV_E2 vmv<>+672(SB)
#define VV_E3 vmv<>+704(SB)
#define VV_E4 vmv<>+736(SB)
#define VV_E5 vmv<>+768(SB)
#define VV_ONE vmv<>+800(SB)
#define VV_INF vmv<>+832(SB)
#define VV_GELUC vmv<>+864(SB)
#define VV_GELUA vmv<>+896(SB)
#define VV_GELU3A vmv<>+928(SB)
#define VV_NEGINF vmv<>+960(SB)

// 16 all-ones lanes then 16 zero lanes: the mask of the first r lanes starts at lane 16−r.
DATA vmMask<>+0(SB)/8, $0xffffffffffffffff
DATA vmMask<>+8(SB)/8, $0xffffffffffffffff
DATA vmMask<>+16(SB)/8, $0xffffffffffffffff
DATA vmMask<>+24(SB)/8, $0xffffffffffffffff
DATA vmMask<>+32(SB)/8, $0xffffffffffffffff
DATA vmMask<>+40(SB)/8, $0xffffffffffffffff
DATA vmMask<>+48(SB)/8, $0xffffffffffffffff
DATA vmMask<>+56(SB)/8, $0xffffffffffffffff
DATA vmMask<>+64(SB)/8, $0
DATA vmMask<>+72(SB)/8, $0
DATA vmMask<>+80(SB)/8, $0
DATA vmMask<>+88(SB)/8, $0
DATA vmMask<>+96(SB)/8, $0
DATA vmMask<>+104(SB)/8, $0
DATA vmMask<>+112(SB)/8, $0
DATA vmMask<>+120(SB)/8, $0
GLOBL vmMask<>(SB), RODATA|NOPTR, $128

// TANH(X): X = tanhf(X) lane-wise; P, Q, T, C are clobbered.
#define TANH(X, P, Q, T, C) \
	VMINPS       VV_TANHHI, X, X; \
	VMAXPS       VV_TANHLO, X, X; \
	VMULPS       X, X, T; \
	VMOVUPS      VV_TP0, P; \
	VFMADD213PS  VV_TP1, T, P; \
	VFMADD213PS  VV_TP2, T, P; \
	VFMADD213PS  VV_TP3, T, P; \
	VFMADD213PS  VV_TP4, T, P; \
	VFMADD213PS  VV_TP5, T, P; \
	VFMADD213PS  VV_TP6, T, P; \
	VMULPS       X, P, P; \
	VMOVUPS      VV_TQ0, Q; \
	VFMADD213PS  VV_TQ1, T, Q; \
	VFMADD213PS  VV_TQ2, T, Q; \
	VFMADD213PS  VV_TQ3, T, Q; \
	VDIVPS       Q, P, X

// EXP(X): X = expf(X) lane-wise (+Inf above 88.376…, 0 below −87); O, N, T, P, C clobbered.
#define EXP(X, O, N, T, P, C) \
	VMOVAPS      X, O; \
	VMINPS       VV_EXPHI, X, X; \
	VMAXPS       VV_EXPLO, X, X; \
	VMOVUPS      VV_LOG2E, N; VFMADD213PS VV_HALF, X, N; \
	VROUNDPS     $1, N, N; \
	VFNMADD231PS VV_C1, N, X; \
	VFNMADD231PS VV_C2, N, X; \
	VMULPS       X, X, T; \
	VMOVUPS      VV_E0, P; \
	VFMADD213PS  VV_E1, X, P; \
	VFMADD213PS  VV_E2, X, P; \
	VFMADD213PS  VV_E3, X, P; \
	VFMADD213PS  VV_E4, X, P; \
	VFMADD213PS  VV_E5, X, P; \
	VFMADD213PS  X, T, P; \
	VADDPS       VV_ONE, P, P; \
	VCVTPS2DQ    N, N; VPSLLD $23, N, N; VPADDD N, P, X; \
	VCMPPS       $0x1e, VV_EXPHI, O, T; \
	VBLENDVPS    T, VV_INF, X, X; \
	VCMPPS       $0x11, VV_EXPLO, O, T; \
	VANDNPS      X, T, X

// TAILMASK(M): M = mask of the first CX (1..7) lanes; BX, R14 clobbered.
#define TAILMASK(M) \
	LEAQ vmMask<>(SB), BX; MOVQ $16, R14; SUBQ CX, R14; VMOVDQU (BX)(R14*4), M

// func tanhVec(dst, src *float32, n int)
TEXT ·tanhVec(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX

tloop:
	CMPQ    CX, $8
	JLT     ttail
	VMOVUPS (SI), Y0
	TANH(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     tloop

ttail:
	TESTQ      CX, CX
	JE         tdone
	TAILMASK(Y10)
	VMASKMOVPS (SI), Y10, Y0
	TANH(Y0, Y1, Y2, Y3, Y4)
	VMASKMOVPS Y0, Y10, (DI)

tdone:
	VZEROUPPER
	RET

// func expSum(x *float32, n int, shift float32) float32
TEXT ·expSum(SB), NOSPLIT, $0-28
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS shift+16(FP), Y8
	VXORPS       Y9, Y9, Y9

eloop:
	CMPQ    CX, $8
	JLT     etail
	VMOVUPS (DI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS Y0, (DI)
	VADDPS  Y0, Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     eloop

etail:
	TESTQ      CX, CX
	JE         esum
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VSUBPS     Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VANDPS     Y10, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VADDPS     Y0, Y9, Y9

esum:
	VEXTRACTF128 $1, Y9, X1
	VADDPS       X1, X9, X0
	VHADDPS      X0, X0, X0
	VHADDPS      X0, X0, X0
	VZEROUPPER
	MOVSS        X0, ret+24(FP)
	RET

// GELUFWD: Y0 = u on entry; Y0 = 0.5u(1+tanh(√(2/π)(u+0.044715u³))) on exit; Y2..Y6 clobbered.
#define GELUFWD() \
	GELUTANH(Y0, Y2); \
	VMULPS       VV_HALF, Y0, Y0; \
	VFMADD213PS  Y0, Y2, Y0

// GELUTANH(U, T): T = tanh(√(2/π)(U+0.044715U³)); Y3..Y6 clobbered.
#define GELUTANH(U, T) \
	VMULPS       U, U, T; \
	VMOVUPS      VV_GELUA, Y3; VFMADD213PS VV_ONE, Y3, T; \
	VMULPS       U, T, T; \
	VMULPS       VV_GELUC, T, T; \
	TANH(T, Y3, Y4, Y5, Y6)

// func geluFwd(y, b, pre *float32, n int, gain float32)
TEXT ·geluFwd(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         pre+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Y8

gfloop:
	CMPQ        CX, $8
	JLT         gftail
	VMOVUPS     (SI), Y1
	VMOVUPS     (DI), Y0
	VFMADD231PS Y1, Y8, Y0
	VMOVUPS     Y0, (R8)
	GELUFWD()
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	ADDQ        $32, R8
	SUBQ        $8, CX
	JMP         gfloop

gftail:
	TESTQ       CX, CX
	JE          gfdone
	TAILMASK(Y10)
	VMASKMOVPS  (SI), Y10, Y1
	VMASKMOVPS  (DI), Y10, Y0
	VFMADD231PS Y1, Y8, Y0
	VMASKMOVPS  Y0, Y10, (R8)
	GELUFWD()
	VMASKMOVPS  Y0, Y10, (DI)

gfdone:
	VZEROUPPER
	RET

// GELUBWD: Y0 = u, Y2 = upstream gradient on entry; Y1 = the input gradient on exit.
#define GELUBWD() \
	GELUTANH(Y0, Y1); \
	VMOVUPS      VV_ONE, Y3; VMOVAPS Y3, Y4; VFNMADD231PS Y1, Y1, Y4; \
	VMULPS       Y0, Y0, Y5; VFMADD132PS VV_GELU3A, Y3, Y5; \
	VMULPS       Y4, Y5, Y5; VMULPS Y0, Y5, Y5; \
	VMULPS       VV_GELUC, Y5, Y5; \
	VADDPS       Y3, Y1, Y1; VADDPS Y5, Y1, Y1; \
	VMULPS       VV_HALF, Y1, Y1; \
	VMULPS       Y2, Y1, Y1

// func geluBwd(dp, gout, pre *float32, n int)
TEXT ·geluBwd(SB), NOSPLIT, $0-32
	MOVQ dp+0(FP), DI
	MOVQ gout+8(FP), SI
	MOVQ pre+16(FP), R8
	MOVQ n+24(FP), CX

gbloop:
	CMPQ    CX, $8
	JLT     gbtail
	VMOVUPS (R8), Y0
	VMOVUPS (SI), Y2
	GELUBWD()
	VMOVUPS Y1, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	ADDQ    $32, R8
	SUBQ    $8, CX
	JMP     gbloop

gbtail:
	TESTQ      CX, CX
	JE         gbdone
	TAILMASK(Y10)
	VMASKMOVPS (R8), Y10, Y0
	VMASKMOVPS (SI), Y10, Y2
	GELUBWD()
	VMASKMOVPS Y1, Y10, (DI)

gbdone:
	VZEROUPPER
	RET

// HSUM(Y, X, T): X's lane 0 = the sum of Y's eight lanes (X is Y's low half); T clobbered.
#define HSUM(Y, X, T) \
	VEXTRACTF128 $1, Y, T; VADDPS T, X, X; VHADDPS X, X, X; VHADDPS X, X, X

// func softmaxRow(x *float32, n int) float32
//
// x[:n] = softmax(x[:n]) with one expf per element; returns Σ exp(x−max) (n ≥ 1).
TEXT ·softmaxRow(SB), NOSPLIT, $0-20
	MOVQ         x+0(FP), SI
	MOVQ         n+8(FP), DX

	// Maximum, masked lanes as −Inf.
	MOVQ         SI, DI
	MOVQ         DX, CX
	VBROADCASTSS VM_NEGINF, Y11
	VMOVAPS      Y11, Y9

smax:
	CMPQ    CX, $8
	JLT     smaxtail
	VMAXPS  (DI), Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     smax

smaxtail:
	TESTQ      CX, CX
	JE         smaxred
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VBLENDVPS  Y10, Y0, Y11, Y0
	VMAXPS     Y0, Y9, Y9

smaxred:
	VEXTRACTF128 $1, Y9, X1
	VMAXPS       X1, X9, X0
	VPERMILPS    $0x4e, X0, X1
	VMAXPS       X1, X0, X0
	VPERMILPS    $0xb1, X0, X1
	VMAXPS       X1, X0, X0
	VBROADCASTSS X0, Y8

	// exp(x − max) and the sum.
	MOVQ   SI, DI
	MOVQ   DX, CX
	VXORPS Y9, Y9, Y9

sexp:
	CMPQ    CX, $8
	JLT     sexptail
	VMOVUPS (DI), Y0
	VSUBPS  Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VMOVUPS Y0, (DI)
	VADDPS  Y0, Y9, Y9
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     sexp

sexptail:
	TESTQ      CX, CX
	JE         ssum
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VSUBPS     Y8, Y0, Y0
	EXP(Y0, Y1, Y2, Y3, Y4, Y5)
	VANDPS     Y10, Y0, Y0
	VMASKMOVPS Y0, Y10, (DI)
	VADDPS     Y0, Y9, Y9

ssum:
	HSUM(Y9, X9, X1)
	MOVSS        X9, ret+16(FP)
	VBROADCASTSS VM_ONE, Y7
	VBROADCASTSS X9, Y9
	VDIVPS       Y9, Y7, Y7

	// Scale by 1/sum.
	MOVQ SI, DI
	MOVQ DX, CX

sscale:
	CMPQ    CX, $8
	JLT     sscaletail
	VMULPS  (DI), Y7, Y0
	VMOVUPS Y0, (DI)
	ADDQ    $32, DI
	SUBQ    $8, CX
	JMP     sscale

sscaletail:
	TESTQ      CX, CX
	JE         sdone
	TAILMASK(Y10)
	VMASKMOVPS (DI), Y10, Y0
	VMULPS     Y0, Y7, Y0
	VMASKMOVPS Y0, Y10, (DI)

sdone:
	VZEROUPPER
	RET

// func softmaxBack(p, dp *float32, n int)
//
// dp[:n] = p·(dp − Σ p·dp): the gradient through a softmax row p given dp = ∂L/∂p.
TEXT ·softmaxBack(SB), NOSPLIT, $0-24
	MOVQ   p+0(FP), SI
	MOVQ   dp+8(FP), DI
	MOVQ   n+16(FP), DX
	MOVQ   DX, CX
	XORQ   AX, AX
	VXORPS Y9, Y9, Y9

bdot:
	CMPQ        CX, $8
	JLT         bdottail
	VMOVUPS     (SI)(AX*1), Y0
	VFMADD231PS (DI)(AX*1), Y0, Y9
	ADDQ        $32, AX
	SUBQ        $8, CX
	JMP         bdot

bdottail:
	TESTQ       CX, CX
	JE          bdotred
	TAILMASK(Y10)
	VMASKMOVPS  (SI)(AX*1), Y10, Y0
	VMASKMOVPS  (DI)(AX*1), Y10, Y1
	VFMADD231PS Y1, Y0, Y9

bdotred:
	HSUM(Y9, X9, X1)
	VBROADCASTSS X9, Y8
	MOVQ         DX, CX
	XORQ         AX, AX

bupd:
	CMPQ    CX, $8
	JLT     bupdtail
	VMOVUPS (DI)(AX*1), Y1
	VSUBPS  Y8, Y1, Y1
	VMULPS  (SI)(AX*1), Y1, Y1
	VMOVUPS Y1, (DI)(AX*1)
	ADDQ    $32, AX
	SUBQ    $8, CX
	JMP     bupd

bupdtail:
	TESTQ      CX, CX
	JE         bdone
	TAILMASK(Y10)
	VMASKMOVPS (SI)(AX*1), Y10, Y0
	VMASKMOVPS (DI)(AX*1), Y10, Y1
	VSUBPS     Y8, Y1, Y1
	VMULPS     Y0, Y1, Y1
	VMASKMOVPS Y1, Y10, (DI)(AX*1)

bdone:
	VZEROUPPER
	RET

// The AVX-512 GELU kernels: geluFwd and geluBwd sixteen lanes at a time, the constants as
// broadcast memory operands, tails by mask registers. Every lane runs the operations of
// the eight-lane versions in the same order, so results are the same bit for bit.

// TANH512(X, P, Q, T): X = tanhf(X) lane-wise; P, Q, T clobbered.
#define TANH512(X, P, Q, T) \
	VMINPS.BCST      VM_TANHHI, X, X; \
	VMAXPS.BCST      VM_TANHLO, X, X; \
	VMULPS           X, X, T; \
	VBROADCASTSS     VM_TP0, P; \
	VFMADD213PS.BCST VM_TP1, T, P; \
	VFMADD213PS.BCST VM_TP2, T, P; \
	VFMADD213PS.BCST VM_TP3, T, P; \
	VFMADD213PS.BCST VM_TP4, T, P; \
	VFMADD213PS.BCST VM_TP5, T, P; \
	VFMADD213PS.BCST VM_TP6, T, P; \
	VMULPS           X, P, P; \
	VBROADCASTSS     VM_TQ0, Q; \
	VFMADD213PS.BCST VM_TQ1, T, Q; \
	VFMADD213PS.BCST VM_TQ2, T, Q; \
	VFMADD213PS.BCST VM_TQ3, T, Q; \
	VDIVPS           Q, P, X

// GELUTANH512(U, T): T = tanh(√(2/π)(U+0.044715U³)); Z3..Z5 clobbered.
#define GELUTANH512(U, T) \
	VMULPS           U, U, T; \
	VBROADCASTSS     VM_GELUA, Z3; VFMADD213PS.BCST VM_ONE, Z3, T; \
	VMULPS           U, T, T; \
	VMULPS.BCST      VM_GELUC, T, T; \
	TANH512(T, Z3, Z4, Z5)

// GELUFWD512: Z0 = u on entry, its GELU on exit; Z2..Z5 clobbered.
#define GELUFWD512() \
	GELUTANH512(Z0, Z2); \
	VMULPS.BCST      VM_HALF, Z0, Z0; \
	VFMADD213PS      Z0, Z2, Z0

// GELUBWD512: Z0 = u, Z2 = upstream gradient on entry; Z1 = the input gradient on exit.
#define GELUBWD512() \
	GELUTANH512(Z0, Z1); \
	VBROADCASTSS     VM_ONE, Z3; VMOVAPS Z3, Z4; VFNMADD231PS Z1, Z1, Z4; \
	VMULPS           Z0, Z0, Z5; VFMADD132PS.BCST VM_GELU3A, Z3, Z5; \
	VMULPS           Z4, Z5, Z5; VMULPS Z0, Z5, Z5; \
	VMULPS.BCST      VM_GELUC, Z5, Z5; \
	VADDPS           Z3, Z1, Z1; VADDPS Z5, Z1, Z1; \
	VMULPS.BCST      VM_HALF, Z1, Z1; \
	VMULPS           Z2, Z1, Z1

// TAILK(K): K = mask of the first CX (1..15) lanes; AX clobbered.
#define TAILK(K) \
	MOVL $1, AX; SHLL CX, AX; DECL AX; KMOVW AX, K

// func geluFwd512(y, b, pre *float32, n int, gain float32)
TEXT ·geluFwd512(SB), NOSPLIT, $0-36
	MOVQ         y+0(FP), DI
	MOVQ         b+8(FP), SI
	MOVQ         pre+16(FP), R8
	MOVQ         n+24(FP), CX
	VBROADCASTSS gain+32(FP), Z8

zfloop:
	CMPQ        CX, $16
	JLT         zftail
	VMOVUPS     (SI), Z1
	VMOVUPS     (DI), Z0
	VFMADD231PS Z1, Z8, Z0
	VMOVUPS     Z0, (R8)
	GELUFWD512()
	VMOVUPS     Z0, (DI)
	ADDQ        $64, DI
	ADDQ        $64, SI
	ADDQ        $64, R8
	SUBQ        $16, CX
	JMP         zfloop

zftail:
	TESTQ       CX, CX
	JE          zfdone
	TAILK(K1)
	VMOVUPS.Z   (SI), K1, Z1
	VMOVUPS.Z   (DI), K1, Z0
	VFMADD231PS Z1, Z8, Z0
	VMOVUPS     Z0, K1, (R8)
	GELUFWD512()
	VMOVUPS     Z0, K1, (DI)

zfdone:
	VZEROUPPER
	RET

// func geluBwd512(dp, gout, pre *float32, n int)
TEXT ·geluBwd512(SB), NOSPLIT, $0-32
	MOVQ dp+0(FP), DI
	MOVQ gout+8(FP), SI
	MOVQ pre+16(FP), R8
	MOVQ n+24(FP), CX

zbloop:
	CMPQ    CX, $16
	JLT     zbtail
	VMOVUPS (R8), Z0
	VMOVUPS (SI), Z2
	GELUBWD512()
	VMOVUPS Z1, (DI)
	ADDQ    $64, DI
	ADDQ    $64, SI
	ADDQ    $64, R8
	SUBQ    $16, CX
	JMP     zbloop

zbtail:
	TESTQ     CX, CX
	JE        zbdone
	TAILK(K1)
	VMOVUPS.Z (R8), K1, Z0
	VMOVUPS.Z (SI), K1, Z2
	GELUBWD512()
	VMOVUPS   Z1, K1, (DI)

zbdone:
	VZEROUPPER
	RET
