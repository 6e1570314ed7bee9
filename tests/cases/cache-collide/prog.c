/*
 * cache-collide: functions whose addresses share a slot of the trace
 * format's address cache (fnt_slot: the top 6 bits of
 * addr * 0x9E3779B97F4A7C15), called in turn.  The program finds them at
 * run time (its load address is random), among 256 small functions.
 *
 *   prog [1|2|3] [N] [K] 1: two functions of different sets, N times each, in
 *                           turn (the baseline for 2)
 *                        2: two functions of one slot, N times each, in turn
 *                        3: three of one slot in turn; on every K-th round
 *                           the second calls g()
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOI __attribute__((noinline))
static volatile unsigned sink;

NOI void g(void)
{
	sink += 7;
}

NOI void f0(int call_g) { sink += 1; if (call_g) g(); }
NOI void f1(int call_g) { sink += 2; if (call_g) g(); }
NOI void f2(int call_g) { sink += 3; if (call_g) g(); }
NOI void f3(int call_g) { sink += 4; if (call_g) g(); }
NOI void f4(int call_g) { sink += 5; if (call_g) g(); }
NOI void f5(int call_g) { sink += 6; if (call_g) g(); }
NOI void f6(int call_g) { sink += 7; if (call_g) g(); }
NOI void f7(int call_g) { sink += 8; if (call_g) g(); }
NOI void f8(int call_g) { sink += 9; if (call_g) g(); }
NOI void f9(int call_g) { sink += 10; if (call_g) g(); }
NOI void f10(int call_g) { sink += 11; if (call_g) g(); }
NOI void f11(int call_g) { sink += 12; if (call_g) g(); }
NOI void f12(int call_g) { sink += 13; if (call_g) g(); }
NOI void f13(int call_g) { sink += 14; if (call_g) g(); }
NOI void f14(int call_g) { sink += 15; if (call_g) g(); }
NOI void f15(int call_g) { sink += 16; if (call_g) g(); }
NOI void f16(int call_g) { sink += 17; if (call_g) g(); }
NOI void f17(int call_g) { sink += 18; if (call_g) g(); }
NOI void f18(int call_g) { sink += 19; if (call_g) g(); }
NOI void f19(int call_g) { sink += 20; if (call_g) g(); }
NOI void f20(int call_g) { sink += 21; if (call_g) g(); }
NOI void f21(int call_g) { sink += 22; if (call_g) g(); }
NOI void f22(int call_g) { sink += 23; if (call_g) g(); }
NOI void f23(int call_g) { sink += 24; if (call_g) g(); }
NOI void f24(int call_g) { sink += 25; if (call_g) g(); }
NOI void f25(int call_g) { sink += 26; if (call_g) g(); }
NOI void f26(int call_g) { sink += 27; if (call_g) g(); }
NOI void f27(int call_g) { sink += 28; if (call_g) g(); }
NOI void f28(int call_g) { sink += 29; if (call_g) g(); }
NOI void f29(int call_g) { sink += 30; if (call_g) g(); }
NOI void f30(int call_g) { sink += 31; if (call_g) g(); }
NOI void f31(int call_g) { sink += 32; if (call_g) g(); }
NOI void f32(int call_g) { sink += 33; if (call_g) g(); }
NOI void f33(int call_g) { sink += 34; if (call_g) g(); }
NOI void f34(int call_g) { sink += 35; if (call_g) g(); }
NOI void f35(int call_g) { sink += 36; if (call_g) g(); }
NOI void f36(int call_g) { sink += 37; if (call_g) g(); }
NOI void f37(int call_g) { sink += 38; if (call_g) g(); }
NOI void f38(int call_g) { sink += 39; if (call_g) g(); }
NOI void f39(int call_g) { sink += 40; if (call_g) g(); }
NOI void f40(int call_g) { sink += 41; if (call_g) g(); }
NOI void f41(int call_g) { sink += 42; if (call_g) g(); }
NOI void f42(int call_g) { sink += 43; if (call_g) g(); }
NOI void f43(int call_g) { sink += 44; if (call_g) g(); }
NOI void f44(int call_g) { sink += 45; if (call_g) g(); }
NOI void f45(int call_g) { sink += 46; if (call_g) g(); }
NOI void f46(int call_g) { sink += 47; if (call_g) g(); }
NOI void f47(int call_g) { sink += 48; if (call_g) g(); }
NOI void f48(int call_g) { sink += 49; if (call_g) g(); }
NOI void f49(int call_g) { sink += 50; if (call_g) g(); }
NOI void f50(int call_g) { sink += 51; if (call_g) g(); }
NOI void f51(int call_g) { sink += 52; if (call_g) g(); }
NOI void f52(int call_g) { sink += 53; if (call_g) g(); }
NOI void f53(int call_g) { sink += 54; if (call_g) g(); }
NOI void f54(int call_g) { sink += 55; if (call_g) g(); }
NOI void f55(int call_g) { sink += 56; if (call_g) g(); }
NOI void f56(int call_g) { sink += 57; if (call_g) g(); }
NOI void f57(int call_g) { sink += 58; if (call_g) g(); }
NOI void f58(int call_g) { sink += 59; if (call_g) g(); }
NOI void f59(int call_g) { sink += 60; if (call_g) g(); }
NOI void f60(int call_g) { sink += 61; if (call_g) g(); }
NOI void f61(int call_g) { sink += 62; if (call_g) g(); }
NOI void f62(int call_g) { sink += 63; if (call_g) g(); }
NOI void f63(int call_g) { sink += 64; if (call_g) g(); }
NOI void f64(int call_g) { sink += 65; if (call_g) g(); }
NOI void f65(int call_g) { sink += 66; if (call_g) g(); }
NOI void f66(int call_g) { sink += 67; if (call_g) g(); }
NOI void f67(int call_g) { sink += 68; if (call_g) g(); }
NOI void f68(int call_g) { sink += 69; if (call_g) g(); }
NOI void f69(int call_g) { sink += 70; if (call_g) g(); }
NOI void f70(int call_g) { sink += 71; if (call_g) g(); }
NOI void f71(int call_g) { sink += 72; if (call_g) g(); }
NOI void f72(int call_g) { sink += 73; if (call_g) g(); }
NOI void f73(int call_g) { sink += 74; if (call_g) g(); }
NOI void f74(int call_g) { sink += 75; if (call_g) g(); }
NOI void f75(int call_g) { sink += 76; if (call_g) g(); }
NOI void f76(int call_g) { sink += 77; if (call_g) g(); }
NOI void f77(int call_g) { sink += 78; if (call_g) g(); }
NOI void f78(int call_g) { sink += 79; if (call_g) g(); }
NOI void f79(int call_g) { sink += 80; if (call_g) g(); }
NOI void f80(int call_g) { sink += 81; if (call_g) g(); }
NOI void f81(int call_g) { sink += 82; if (call_g) g(); }
NOI void f82(int call_g) { sink += 83; if (call_g) g(); }
NOI void f83(int call_g) { sink += 84; if (call_g) g(); }
NOI void f84(int call_g) { sink += 85; if (call_g) g(); }
NOI void f85(int call_g) { sink += 86; if (call_g) g(); }
NOI void f86(int call_g) { sink += 87; if (call_g) g(); }
NOI void f87(int call_g) { sink += 88; if (call_g) g(); }
NOI void f88(int call_g) { sink += 89; if (call_g) g(); }
NOI void f89(int call_g) { sink += 90; if (call_g) g(); }
NOI void f90(int call_g) { sink += 91; if (call_g) g(); }
NOI void f91(int call_g) { sink += 92; if (call_g) g(); }
NOI void f92(int call_g) { sink += 93; if (call_g) g(); }
NOI void f93(int call_g) { sink += 94; if (call_g) g(); }
NOI void f94(int call_g) { sink += 95; if (call_g) g(); }
NOI void f95(int call_g) { sink += 96; if (call_g) g(); }
NOI void f96(int call_g) { sink += 97; if (call_g) g(); }
NOI void f97(int call_g) { sink += 98; if (call_g) g(); }
NOI void f98(int call_g) { sink += 99; if (call_g) g(); }
NOI void f99(int call_g) { sink += 100; if (call_g) g(); }
NOI void f100(int call_g) { sink += 101; if (call_g) g(); }
NOI void f101(int call_g) { sink += 102; if (call_g) g(); }
NOI void f102(int call_g) { sink += 103; if (call_g) g(); }
NOI void f103(int call_g) { sink += 104; if (call_g) g(); }
NOI void f104(int call_g) { sink += 105; if (call_g) g(); }
NOI void f105(int call_g) { sink += 106; if (call_g) g(); }
NOI void f106(int call_g) { sink += 107; if (call_g) g(); }
NOI void f107(int call_g) { sink += 108; if (call_g) g(); }
NOI void f108(int call_g) { sink += 109; if (call_g) g(); }
NOI void f109(int call_g) { sink += 110; if (call_g) g(); }
NOI void f110(int call_g) { sink += 111; if (call_g) g(); }
NOI void f111(int call_g) { sink += 112; if (call_g) g(); }
NOI void f112(int call_g) { sink += 113; if (call_g) g(); }
NOI void f113(int call_g) { sink += 114; if (call_g) g(); }
NOI void f114(int call_g) { sink += 115; if (call_g) g(); }
NOI void f115(int call_g) { sink += 116; if (call_g) g(); }
NOI void f116(int call_g) { sink += 117; if (call_g) g(); }
NOI void f117(int call_g) { sink += 118; if (call_g) g(); }
NOI void f118(int call_g) { sink += 119; if (call_g) g(); }
NOI void f119(int call_g) { sink += 120; if (call_g) g(); }
NOI void f120(int call_g) { sink += 121; if (call_g) g(); }
NOI void f121(int call_g) { sink += 122; if (call_g) g(); }
NOI void f122(int call_g) { sink += 123; if (call_g) g(); }
NOI void f123(int call_g) { sink += 124; if (call_g) g(); }
NOI void f124(int call_g) { sink += 125; if (call_g) g(); }
NOI void f125(int call_g) { sink += 126; if (call_g) g(); }
NOI void f126(int call_g) { sink += 127; if (call_g) g(); }
NOI void f127(int call_g) { sink += 128; if (call_g) g(); }
NOI void f128(int call_g) { sink += 129; if (call_g) g(); }
NOI void f129(int call_g) { sink += 130; if (call_g) g(); }
NOI void f130(int call_g) { sink += 131; if (call_g) g(); }
NOI void f131(int call_g) { sink += 132; if (call_g) g(); }
NOI void f132(int call_g) { sink += 133; if (call_g) g(); }
NOI void f133(int call_g) { sink += 134; if (call_g) g(); }
NOI void f134(int call_g) { sink += 135; if (call_g) g(); }
NOI void f135(int call_g) { sink += 136; if (call_g) g(); }
NOI void f136(int call_g) { sink += 137; if (call_g) g(); }
NOI void f137(int call_g) { sink += 138; if (call_g) g(); }
NOI void f138(int call_g) { sink += 139; if (call_g) g(); }
NOI void f139(int call_g) { sink += 140; if (call_g) g(); }
NOI void f140(int call_g) { sink += 141; if (call_g) g(); }
NOI void f141(int call_g) { sink += 142; if (call_g) g(); }
NOI void f142(int call_g) { sink += 143; if (call_g) g(); }
NOI void f143(int call_g) { sink += 144; if (call_g) g(); }
NOI void f144(int call_g) { sink += 145; if (call_g) g(); }
NOI void f145(int call_g) { sink += 146; if (call_g) g(); }
NOI void f146(int call_g) { sink += 147; if (call_g) g(); }
NOI void f147(int call_g) { sink += 148; if (call_g) g(); }
NOI void f148(int call_g) { sink += 149; if (call_g) g(); }
NOI void f149(int call_g) { sink += 150; if (call_g) g(); }
NOI void f150(int call_g) { sink += 151; if (call_g) g(); }
NOI void f151(int call_g) { sink += 152; if (call_g) g(); }
NOI void f152(int call_g) { sink += 153; if (call_g) g(); }
NOI void f153(int call_g) { sink += 154; if (call_g) g(); }
NOI void f154(int call_g) { sink += 155; if (call_g) g(); }
NOI void f155(int call_g) { sink += 156; if (call_g) g(); }
NOI void f156(int call_g) { sink += 157; if (call_g) g(); }
NOI void f157(int call_g) { sink += 158; if (call_g) g(); }
NOI void f158(int call_g) { sink += 159; if (call_g) g(); }
NOI void f159(int call_g) { sink += 160; if (call_g) g(); }
NOI void f160(int call_g) { sink += 161; if (call_g) g(); }
NOI void f161(int call_g) { sink += 162; if (call_g) g(); }
NOI void f162(int call_g) { sink += 163; if (call_g) g(); }
NOI void f163(int call_g) { sink += 164; if (call_g) g(); }
NOI void f164(int call_g) { sink += 165; if (call_g) g(); }
NOI void f165(int call_g) { sink += 166; if (call_g) g(); }
NOI void f166(int call_g) { sink += 167; if (call_g) g(); }
NOI void f167(int call_g) { sink += 168; if (call_g) g(); }
NOI void f168(int call_g) { sink += 169; if (call_g) g(); }
NOI void f169(int call_g) { sink += 170; if (call_g) g(); }
NOI void f170(int call_g) { sink += 171; if (call_g) g(); }
NOI void f171(int call_g) { sink += 172; if (call_g) g(); }
NOI void f172(int call_g) { sink += 173; if (call_g) g(); }
NOI void f173(int call_g) { sink += 174; if (call_g) g(); }
NOI void f174(int call_g) { sink += 175; if (call_g) g(); }
NOI void f175(int call_g) { sink += 176; if (call_g) g(); }
NOI void f176(int call_g) { sink += 177; if (call_g) g(); }
NOI void f177(int call_g) { sink += 178; if (call_g) g(); }
NOI void f178(int call_g) { sink += 179; if (call_g) g(); }
NOI void f179(int call_g) { sink += 180; if (call_g) g(); }
NOI void f180(int call_g) { sink += 181; if (call_g) g(); }
NOI void f181(int call_g) { sink += 182; if (call_g) g(); }
NOI void f182(int call_g) { sink += 183; if (call_g) g(); }
NOI void f183(int call_g) { sink += 184; if (call_g) g(); }
NOI void f184(int call_g) { sink += 185; if (call_g) g(); }
NOI void f185(int call_g) { sink += 186; if (call_g) g(); }
NOI void f186(int call_g) { sink += 187; if (call_g) g(); }
NOI void f187(int call_g) { sink += 188; if (call_g) g(); }
NOI void f188(int call_g) { sink += 189; if (call_g) g(); }
NOI void f189(int call_g) { sink += 190; if (call_g) g(); }
NOI void f190(int call_g) { sink += 191; if (call_g) g(); }
NOI void f191(int call_g) { sink += 192; if (call_g) g(); }
NOI void f192(int call_g) { sink += 193; if (call_g) g(); }
NOI void f193(int call_g) { sink += 194; if (call_g) g(); }
NOI void f194(int call_g) { sink += 195; if (call_g) g(); }
NOI void f195(int call_g) { sink += 196; if (call_g) g(); }
NOI void f196(int call_g) { sink += 197; if (call_g) g(); }
NOI void f197(int call_g) { sink += 198; if (call_g) g(); }
NOI void f198(int call_g) { sink += 199; if (call_g) g(); }
NOI void f199(int call_g) { sink += 200; if (call_g) g(); }
NOI void f200(int call_g) { sink += 201; if (call_g) g(); }
NOI void f201(int call_g) { sink += 202; if (call_g) g(); }
NOI void f202(int call_g) { sink += 203; if (call_g) g(); }
NOI void f203(int call_g) { sink += 204; if (call_g) g(); }
NOI void f204(int call_g) { sink += 205; if (call_g) g(); }
NOI void f205(int call_g) { sink += 206; if (call_g) g(); }
NOI void f206(int call_g) { sink += 207; if (call_g) g(); }
NOI void f207(int call_g) { sink += 208; if (call_g) g(); }
NOI void f208(int call_g) { sink += 209; if (call_g) g(); }
NOI void f209(int call_g) { sink += 210; if (call_g) g(); }
NOI void f210(int call_g) { sink += 211; if (call_g) g(); }
NOI void f211(int call_g) { sink += 212; if (call_g) g(); }
NOI void f212(int call_g) { sink += 213; if (call_g) g(); }
NOI void f213(int call_g) { sink += 214; if (call_g) g(); }
NOI void f214(int call_g) { sink += 215; if (call_g) g(); }
NOI void f215(int call_g) { sink += 216; if (call_g) g(); }
NOI void f216(int call_g) { sink += 217; if (call_g) g(); }
NOI void f217(int call_g) { sink += 218; if (call_g) g(); }
NOI void f218(int call_g) { sink += 219; if (call_g) g(); }
NOI void f219(int call_g) { sink += 220; if (call_g) g(); }
NOI void f220(int call_g) { sink += 221; if (call_g) g(); }
NOI void f221(int call_g) { sink += 222; if (call_g) g(); }
NOI void f222(int call_g) { sink += 223; if (call_g) g(); }
NOI void f223(int call_g) { sink += 224; if (call_g) g(); }
NOI void f224(int call_g) { sink += 225; if (call_g) g(); }
NOI void f225(int call_g) { sink += 226; if (call_g) g(); }
NOI void f226(int call_g) { sink += 227; if (call_g) g(); }
NOI void f227(int call_g) { sink += 228; if (call_g) g(); }
NOI void f228(int call_g) { sink += 229; if (call_g) g(); }
NOI void f229(int call_g) { sink += 230; if (call_g) g(); }
NOI void f230(int call_g) { sink += 231; if (call_g) g(); }
NOI void f231(int call_g) { sink += 232; if (call_g) g(); }
NOI void f232(int call_g) { sink += 233; if (call_g) g(); }
NOI void f233(int call_g) { sink += 234; if (call_g) g(); }
NOI void f234(int call_g) { sink += 235; if (call_g) g(); }
NOI void f235(int call_g) { sink += 236; if (call_g) g(); }
NOI void f236(int call_g) { sink += 237; if (call_g) g(); }
NOI void f237(int call_g) { sink += 238; if (call_g) g(); }
NOI void f238(int call_g) { sink += 239; if (call_g) g(); }
NOI void f239(int call_g) { sink += 240; if (call_g) g(); }
NOI void f240(int call_g) { sink += 241; if (call_g) g(); }
NOI void f241(int call_g) { sink += 242; if (call_g) g(); }
NOI void f242(int call_g) { sink += 243; if (call_g) g(); }
NOI void f243(int call_g) { sink += 244; if (call_g) g(); }
NOI void f244(int call_g) { sink += 245; if (call_g) g(); }
NOI void f245(int call_g) { sink += 246; if (call_g) g(); }
NOI void f246(int call_g) { sink += 247; if (call_g) g(); }
NOI void f247(int call_g) { sink += 248; if (call_g) g(); }
NOI void f248(int call_g) { sink += 249; if (call_g) g(); }
NOI void f249(int call_g) { sink += 250; if (call_g) g(); }
NOI void f250(int call_g) { sink += 251; if (call_g) g(); }
NOI void f251(int call_g) { sink += 252; if (call_g) g(); }
NOI void f252(int call_g) { sink += 253; if (call_g) g(); }
NOI void f253(int call_g) { sink += 254; if (call_g) g(); }
NOI void f254(int call_g) { sink += 255; if (call_g) g(); }
NOI void f255(int call_g) { sink += 256; if (call_g) g(); }

static void (*const fns[256])(int) = {
	f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20, f21, f22, f23, f24, f25, f26, f27, f28, f29, f30, f31, f32, f33, f34, f35, f36, f37, f38, f39, f40, f41, f42, f43, f44, f45, f46, f47, f48, f49, f50, f51, f52, f53, f54, f55, f56, f57, f58, f59, f60, f61, f62, f63, f64, f65, f66, f67, f68, f69, f70, f71, f72, f73, f74, f75, f76, f77, f78, f79, f80, f81, f82, f83, f84, f85, f86, f87, f88, f89, f90, f91, f92, f93, f94, f95, f96, f97, f98, f99, f100, f101, f102, f103, f104, f105, f106, f107, f108, f109, f110, f111, f112, f113, f114, f115, f116, f117, f118, f119, f120, f121, f122, f123, f124, f125, f126, f127, f128, f129, f130, f131, f132, f133, f134, f135, f136, f137, f138, f139, f140, f141, f142, f143, f144, f145, f146, f147, f148, f149, f150, f151, f152, f153, f154, f155, f156, f157, f158, f159, f160, f161, f162, f163, f164, f165, f166, f167, f168, f169, f170, f171, f172, f173, f174, f175, f176, f177, f178, f179, f180, f181, f182, f183, f184, f185, f186, f187, f188, f189, f190, f191, f192, f193, f194, f195, f196, f197, f198, f199, f200, f201, f202, f203, f204, f205, f206, f207, f208, f209, f210, f211, f212, f213, f214, f215, f216, f217, f218, f219, f220, f221, f222, f223, f224, f225, f226, f227, f228, f229, f230, f231, f232, f233, f234, f235, f236, f237, f238, f239, f240, f241, f242, f243, f244, f245, f246, f247, f248, f249, f250, f251, f252, f253, f254, f255
};

static unsigned slot_of(void (*f)(int))
{
	return (unsigned)(((uint64_t)(uintptr_t)f * 0x9E3779B97F4A7C15ull) >> 58);
}

/* the first `want` functions of one slot; want 1: f0 and the first
 * function of another set */
static int pick(int want, int *out)
{
	if (want == 1) {
		out[0] = 0;
		for (int j = 1; j < 256; j++)
			if (slot_of(fns[j]) >> 1 != slot_of(fns[0]) >> 1) {
				out[1] = j;
				return 0;
			}
		return -1;
	}
	for (int i = 0; i < 256; i++) {
		int n = 0;
		for (int j = i; j < 256 && n < want; j++)
			if (slot_of(fns[j]) == slot_of(fns[i]))
				out[n++] = j;
		if (n == want)
			return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	int mode = argc > 1 ? atoi(argv[1]) : 2;
	long n = argc > 2 ? atol(argv[2]) : 100000, k = argc > 3 ? atol(argv[3]) : 1000;
	int f[3] = { 0, 0, 0 };
	if (mode < 1 || mode > 3 || n < 1 || k < 1 || pick(mode, f)) {
		fprintf(stderr, "usage: prog [2|3] [N] [K] (or no %d functions of one slot)\n", mode);
		return 1;
	}
	for (long i = 0; i < n; i++) {
		fns[f[0]](0);
		fns[f[1]](mode == 3 && i % k == 0);
		if (mode == 3)
			fns[f[2]](0);
	}
	printf(mode == 3 ? "f%d f%d f%d\n" : "f%d f%d\n", f[0], f[1], f[2]);
	return 0;
}
