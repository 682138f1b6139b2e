// Shared by vmath_amd64.s and gelu_erf_amd64.s (each includes its own copy of the static
// tables): the constants of num.go's tanhf and expf as scalars (vmc) and eight-lane vectors
// (vmv), the tail masks, and the TANH, EXP, TAILMASK and TAILK macros.

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

// TAILK(K): K = mask of the first CX (1..15) lanes; AX clobbered.
#define TAILK(K) \
	MOVL $1, AX; SHLL CX, AX; DECL AX; KMOVW AX, K
