/* record-signal-after-exit: 300 functions called once each, so that
 * `fntrace record --report` has a long report to write after the program
 * has ended. */
#include <stdio.h>

#define NOI __attribute__((noinline))
static volatile unsigned sink;

NOI void fn_000(void) { sink += 1; }
NOI void fn_001(void) { sink += 2; }
NOI void fn_002(void) { sink += 3; }
NOI void fn_003(void) { sink += 4; }
NOI void fn_004(void) { sink += 5; }
NOI void fn_005(void) { sink += 6; }
NOI void fn_006(void) { sink += 7; }
NOI void fn_007(void) { sink += 8; }
NOI void fn_008(void) { sink += 9; }
NOI void fn_009(void) { sink += 10; }
NOI void fn_010(void) { sink += 11; }
NOI void fn_011(void) { sink += 12; }
NOI void fn_012(void) { sink += 13; }
NOI void fn_013(void) { sink += 14; }
NOI void fn_014(void) { sink += 15; }
NOI void fn_015(void) { sink += 16; }
NOI void fn_016(void) { sink += 17; }
NOI void fn_017(void) { sink += 18; }
NOI void fn_018(void) { sink += 19; }
NOI void fn_019(void) { sink += 20; }
NOI void fn_020(void) { sink += 21; }
NOI void fn_021(void) { sink += 22; }
NOI void fn_022(void) { sink += 23; }
NOI void fn_023(void) { sink += 24; }
NOI void fn_024(void) { sink += 25; }
NOI void fn_025(void) { sink += 26; }
NOI void fn_026(void) { sink += 27; }
NOI void fn_027(void) { sink += 28; }
NOI void fn_028(void) { sink += 29; }
NOI void fn_029(void) { sink += 30; }
NOI void fn_030(void) { sink += 31; }
NOI void fn_031(void) { sink += 32; }
NOI void fn_032(void) { sink += 33; }
NOI void fn_033(void) { sink += 34; }
NOI void fn_034(void) { sink += 35; }
NOI void fn_035(void) { sink += 36; }
NOI void fn_036(void) { sink += 37; }
NOI void fn_037(void) { sink += 38; }
NOI void fn_038(void) { sink += 39; }
NOI void fn_039(void) { sink += 40; }
NOI void fn_040(void) { sink += 41; }
NOI void fn_041(void) { sink += 42; }
NOI void fn_042(void) { sink += 43; }
NOI void fn_043(void) { sink += 44; }
NOI void fn_044(void) { sink += 45; }
NOI void fn_045(void) { sink += 46; }
NOI void fn_046(void) { sink += 47; }
NOI void fn_047(void) { sink += 48; }
NOI void fn_048(void) { sink += 49; }
NOI void fn_049(void) { sink += 50; }
NOI void fn_050(void) { sink += 51; }
NOI void fn_051(void) { sink += 52; }
NOI void fn_052(void) { sink += 53; }
NOI void fn_053(void) { sink += 54; }
NOI void fn_054(void) { sink += 55; }
NOI void fn_055(void) { sink += 56; }
NOI void fn_056(void) { sink += 57; }
NOI void fn_057(void) { sink += 58; }
NOI void fn_058(void) { sink += 59; }
NOI void fn_059(void) { sink += 60; }
NOI void fn_060(void) { sink += 61; }
NOI void fn_061(void) { sink += 62; }
NOI void fn_062(void) { sink += 63; }
NOI void fn_063(void) { sink += 64; }
NOI void fn_064(void) { sink += 65; }
NOI void fn_065(void) { sink += 66; }
NOI void fn_066(void) { sink += 67; }
NOI void fn_067(void) { sink += 68; }
NOI void fn_068(void) { sink += 69; }
NOI void fn_069(void) { sink += 70; }
NOI void fn_070(void) { sink += 71; }
NOI void fn_071(void) { sink += 72; }
NOI void fn_072(void) { sink += 73; }
NOI void fn_073(void) { sink += 74; }
NOI void fn_074(void) { sink += 75; }
NOI void fn_075(void) { sink += 76; }
NOI void fn_076(void) { sink += 77; }
NOI void fn_077(void) { sink += 78; }
NOI void fn_078(void) { sink += 79; }
NOI void fn_079(void) { sink += 80; }
NOI void fn_080(void) { sink += 81; }
NOI void fn_081(void) { sink += 82; }
NOI void fn_082(void) { sink += 83; }
NOI void fn_083(void) { sink += 84; }
NOI void fn_084(void) { sink += 85; }
NOI void fn_085(void) { sink += 86; }
NOI void fn_086(void) { sink += 87; }
NOI void fn_087(void) { sink += 88; }
NOI void fn_088(void) { sink += 89; }
NOI void fn_089(void) { sink += 90; }
NOI void fn_090(void) { sink += 91; }
NOI void fn_091(void) { sink += 92; }
NOI void fn_092(void) { sink += 93; }
NOI void fn_093(void) { sink += 94; }
NOI void fn_094(void) { sink += 95; }
NOI void fn_095(void) { sink += 96; }
NOI void fn_096(void) { sink += 97; }
NOI void fn_097(void) { sink += 98; }
NOI void fn_098(void) { sink += 99; }
NOI void fn_099(void) { sink += 100; }
NOI void fn_100(void) { sink += 101; }
NOI void fn_101(void) { sink += 102; }
NOI void fn_102(void) { sink += 103; }
NOI void fn_103(void) { sink += 104; }
NOI void fn_104(void) { sink += 105; }
NOI void fn_105(void) { sink += 106; }
NOI void fn_106(void) { sink += 107; }
NOI void fn_107(void) { sink += 108; }
NOI void fn_108(void) { sink += 109; }
NOI void fn_109(void) { sink += 110; }
NOI void fn_110(void) { sink += 111; }
NOI void fn_111(void) { sink += 112; }
NOI void fn_112(void) { sink += 113; }
NOI void fn_113(void) { sink += 114; }
NOI void fn_114(void) { sink += 115; }
NOI void fn_115(void) { sink += 116; }
NOI void fn_116(void) { sink += 117; }
NOI void fn_117(void) { sink += 118; }
NOI void fn_118(void) { sink += 119; }
NOI void fn_119(void) { sink += 120; }
NOI void fn_120(void) { sink += 121; }
NOI void fn_121(void) { sink += 122; }
NOI void fn_122(void) { sink += 123; }
NOI void fn_123(void) { sink += 124; }
NOI void fn_124(void) { sink += 125; }
NOI void fn_125(void) { sink += 126; }
NOI void fn_126(void) { sink += 127; }
NOI void fn_127(void) { sink += 128; }
NOI void fn_128(void) { sink += 129; }
NOI void fn_129(void) { sink += 130; }
NOI void fn_130(void) { sink += 131; }
NOI void fn_131(void) { sink += 132; }
NOI void fn_132(void) { sink += 133; }
NOI void fn_133(void) { sink += 134; }
NOI void fn_134(void) { sink += 135; }
NOI void fn_135(void) { sink += 136; }
NOI void fn_136(void) { sink += 137; }
NOI void fn_137(void) { sink += 138; }
NOI void fn_138(void) { sink += 139; }
NOI void fn_139(void) { sink += 140; }
NOI void fn_140(void) { sink += 141; }
NOI void fn_141(void) { sink += 142; }
NOI void fn_142(void) { sink += 143; }
NOI void fn_143(void) { sink += 144; }
NOI void fn_144(void) { sink += 145; }
NOI void fn_145(void) { sink += 146; }
NOI void fn_146(void) { sink += 147; }
NOI void fn_147(void) { sink += 148; }
NOI void fn_148(void) { sink += 149; }
NOI void fn_149(void) { sink += 150; }
NOI void fn_150(void) { sink += 151; }
NOI void fn_151(void) { sink += 152; }
NOI void fn_152(void) { sink += 153; }
NOI void fn_153(void) { sink += 154; }
NOI void fn_154(void) { sink += 155; }
NOI void fn_155(void) { sink += 156; }
NOI void fn_156(void) { sink += 157; }
NOI void fn_157(void) { sink += 158; }
NOI void fn_158(void) { sink += 159; }
NOI void fn_159(void) { sink += 160; }
NOI void fn_160(void) { sink += 161; }
NOI void fn_161(void) { sink += 162; }
NOI void fn_162(void) { sink += 163; }
NOI void fn_163(void) { sink += 164; }
NOI void fn_164(void) { sink += 165; }
NOI void fn_165(void) { sink += 166; }
NOI void fn_166(void) { sink += 167; }
NOI void fn_167(void) { sink += 168; }
NOI void fn_168(void) { sink += 169; }
NOI void fn_169(void) { sink += 170; }
NOI void fn_170(void) { sink += 171; }
NOI void fn_171(void) { sink += 172; }
NOI void fn_172(void) { sink += 173; }
NOI void fn_173(void) { sink += 174; }
NOI void fn_174(void) { sink += 175; }
NOI void fn_175(void) { sink += 176; }
NOI void fn_176(void) { sink += 177; }
NOI void fn_177(void) { sink += 178; }
NOI void fn_178(void) { sink += 179; }
NOI void fn_179(void) { sink += 180; }
NOI void fn_180(void) { sink += 181; }
NOI void fn_181(void) { sink += 182; }
NOI void fn_182(void) { sink += 183; }
NOI void fn_183(void) { sink += 184; }
NOI void fn_184(void) { sink += 185; }
NOI void fn_185(void) { sink += 186; }
NOI void fn_186(void) { sink += 187; }
NOI void fn_187(void) { sink += 188; }
NOI void fn_188(void) { sink += 189; }
NOI void fn_189(void) { sink += 190; }
NOI void fn_190(void) { sink += 191; }
NOI void fn_191(void) { sink += 192; }
NOI void fn_192(void) { sink += 193; }
NOI void fn_193(void) { sink += 194; }
NOI void fn_194(void) { sink += 195; }
NOI void fn_195(void) { sink += 196; }
NOI void fn_196(void) { sink += 197; }
NOI void fn_197(void) { sink += 198; }
NOI void fn_198(void) { sink += 199; }
NOI void fn_199(void) { sink += 200; }
NOI void fn_200(void) { sink += 201; }
NOI void fn_201(void) { sink += 202; }
NOI void fn_202(void) { sink += 203; }
NOI void fn_203(void) { sink += 204; }
NOI void fn_204(void) { sink += 205; }
NOI void fn_205(void) { sink += 206; }
NOI void fn_206(void) { sink += 207; }
NOI void fn_207(void) { sink += 208; }
NOI void fn_208(void) { sink += 209; }
NOI void fn_209(void) { sink += 210; }
NOI void fn_210(void) { sink += 211; }
NOI void fn_211(void) { sink += 212; }
NOI void fn_212(void) { sink += 213; }
NOI void fn_213(void) { sink += 214; }
NOI void fn_214(void) { sink += 215; }
NOI void fn_215(void) { sink += 216; }
NOI void fn_216(void) { sink += 217; }
NOI void fn_217(void) { sink += 218; }
NOI void fn_218(void) { sink += 219; }
NOI void fn_219(void) { sink += 220; }
NOI void fn_220(void) { sink += 221; }
NOI void fn_221(void) { sink += 222; }
NOI void fn_222(void) { sink += 223; }
NOI void fn_223(void) { sink += 224; }
NOI void fn_224(void) { sink += 225; }
NOI void fn_225(void) { sink += 226; }
NOI void fn_226(void) { sink += 227; }
NOI void fn_227(void) { sink += 228; }
NOI void fn_228(void) { sink += 229; }
NOI void fn_229(void) { sink += 230; }
NOI void fn_230(void) { sink += 231; }
NOI void fn_231(void) { sink += 232; }
NOI void fn_232(void) { sink += 233; }
NOI void fn_233(void) { sink += 234; }
NOI void fn_234(void) { sink += 235; }
NOI void fn_235(void) { sink += 236; }
NOI void fn_236(void) { sink += 237; }
NOI void fn_237(void) { sink += 238; }
NOI void fn_238(void) { sink += 239; }
NOI void fn_239(void) { sink += 240; }
NOI void fn_240(void) { sink += 241; }
NOI void fn_241(void) { sink += 242; }
NOI void fn_242(void) { sink += 243; }
NOI void fn_243(void) { sink += 244; }
NOI void fn_244(void) { sink += 245; }
NOI void fn_245(void) { sink += 246; }
NOI void fn_246(void) { sink += 247; }
NOI void fn_247(void) { sink += 248; }
NOI void fn_248(void) { sink += 249; }
NOI void fn_249(void) { sink += 250; }
NOI void fn_250(void) { sink += 251; }
NOI void fn_251(void) { sink += 252; }
NOI void fn_252(void) { sink += 253; }
NOI void fn_253(void) { sink += 254; }
NOI void fn_254(void) { sink += 255; }
NOI void fn_255(void) { sink += 256; }
NOI void fn_256(void) { sink += 257; }
NOI void fn_257(void) { sink += 258; }
NOI void fn_258(void) { sink += 259; }
NOI void fn_259(void) { sink += 260; }
NOI void fn_260(void) { sink += 261; }
NOI void fn_261(void) { sink += 262; }
NOI void fn_262(void) { sink += 263; }
NOI void fn_263(void) { sink += 264; }
NOI void fn_264(void) { sink += 265; }
NOI void fn_265(void) { sink += 266; }
NOI void fn_266(void) { sink += 267; }
NOI void fn_267(void) { sink += 268; }
NOI void fn_268(void) { sink += 269; }
NOI void fn_269(void) { sink += 270; }
NOI void fn_270(void) { sink += 271; }
NOI void fn_271(void) { sink += 272; }
NOI void fn_272(void) { sink += 273; }
NOI void fn_273(void) { sink += 274; }
NOI void fn_274(void) { sink += 275; }
NOI void fn_275(void) { sink += 276; }
NOI void fn_276(void) { sink += 277; }
NOI void fn_277(void) { sink += 278; }
NOI void fn_278(void) { sink += 279; }
NOI void fn_279(void) { sink += 280; }
NOI void fn_280(void) { sink += 281; }
NOI void fn_281(void) { sink += 282; }
NOI void fn_282(void) { sink += 283; }
NOI void fn_283(void) { sink += 284; }
NOI void fn_284(void) { sink += 285; }
NOI void fn_285(void) { sink += 286; }
NOI void fn_286(void) { sink += 287; }
NOI void fn_287(void) { sink += 288; }
NOI void fn_288(void) { sink += 289; }
NOI void fn_289(void) { sink += 290; }
NOI void fn_290(void) { sink += 291; }
NOI void fn_291(void) { sink += 292; }
NOI void fn_292(void) { sink += 293; }
NOI void fn_293(void) { sink += 294; }
NOI void fn_294(void) { sink += 295; }
NOI void fn_295(void) { sink += 296; }
NOI void fn_296(void) { sink += 297; }
NOI void fn_297(void) { sink += 298; }
NOI void fn_298(void) { sink += 299; }
NOI void fn_299(void) { sink += 300; }

int main(void)
{
	fn_000();
	fn_001();
	fn_002();
	fn_003();
	fn_004();
	fn_005();
	fn_006();
	fn_007();
	fn_008();
	fn_009();
	fn_010();
	fn_011();
	fn_012();
	fn_013();
	fn_014();
	fn_015();
	fn_016();
	fn_017();
	fn_018();
	fn_019();
	fn_020();
	fn_021();
	fn_022();
	fn_023();
	fn_024();
	fn_025();
	fn_026();
	fn_027();
	fn_028();
	fn_029();
	fn_030();
	fn_031();
	fn_032();
	fn_033();
	fn_034();
	fn_035();
	fn_036();
	fn_037();
	fn_038();
	fn_039();
	fn_040();
	fn_041();
	fn_042();
	fn_043();
	fn_044();
	fn_045();
	fn_046();
	fn_047();
	fn_048();
	fn_049();
	fn_050();
	fn_051();
	fn_052();
	fn_053();
	fn_054();
	fn_055();
	fn_056();
	fn_057();
	fn_058();
	fn_059();
	fn_060();
	fn_061();
	fn_062();
	fn_063();
	fn_064();
	fn_065();
	fn_066();
	fn_067();
	fn_068();
	fn_069();
	fn_070();
	fn_071();
	fn_072();
	fn_073();
	fn_074();
	fn_075();
	fn_076();
	fn_077();
	fn_078();
	fn_079();
	fn_080();
	fn_081();
	fn_082();
	fn_083();
	fn_084();
	fn_085();
	fn_086();
	fn_087();
	fn_088();
	fn_089();
	fn_090();
	fn_091();
	fn_092();
	fn_093();
	fn_094();
	fn_095();
	fn_096();
	fn_097();
	fn_098();
	fn_099();
	fn_100();
	fn_101();
	fn_102();
	fn_103();
	fn_104();
	fn_105();
	fn_106();
	fn_107();
	fn_108();
	fn_109();
	fn_110();
	fn_111();
	fn_112();
	fn_113();
	fn_114();
	fn_115();
	fn_116();
	fn_117();
	fn_118();
	fn_119();
	fn_120();
	fn_121();
	fn_122();
	fn_123();
	fn_124();
	fn_125();
	fn_126();
	fn_127();
	fn_128();
	fn_129();
	fn_130();
	fn_131();
	fn_132();
	fn_133();
	fn_134();
	fn_135();
	fn_136();
	fn_137();
	fn_138();
	fn_139();
	fn_140();
	fn_141();
	fn_142();
	fn_143();
	fn_144();
	fn_145();
	fn_146();
	fn_147();
	fn_148();
	fn_149();
	fn_150();
	fn_151();
	fn_152();
	fn_153();
	fn_154();
	fn_155();
	fn_156();
	fn_157();
	fn_158();
	fn_159();
	fn_160();
	fn_161();
	fn_162();
	fn_163();
	fn_164();
	fn_165();
	fn_166();
	fn_167();
	fn_168();
	fn_169();
	fn_170();
	fn_171();
	fn_172();
	fn_173();
	fn_174();
	fn_175();
	fn_176();
	fn_177();
	fn_178();
	fn_179();
	fn_180();
	fn_181();
	fn_182();
	fn_183();
	fn_184();
	fn_185();
	fn_186();
	fn_187();
	fn_188();
	fn_189();
	fn_190();
	fn_191();
	fn_192();
	fn_193();
	fn_194();
	fn_195();
	fn_196();
	fn_197();
	fn_198();
	fn_199();
	fn_200();
	fn_201();
	fn_202();
	fn_203();
	fn_204();
	fn_205();
	fn_206();
	fn_207();
	fn_208();
	fn_209();
	fn_210();
	fn_211();
	fn_212();
	fn_213();
	fn_214();
	fn_215();
	fn_216();
	fn_217();
	fn_218();
	fn_219();
	fn_220();
	fn_221();
	fn_222();
	fn_223();
	fn_224();
	fn_225();
	fn_226();
	fn_227();
	fn_228();
	fn_229();
	fn_230();
	fn_231();
	fn_232();
	fn_233();
	fn_234();
	fn_235();
	fn_236();
	fn_237();
	fn_238();
	fn_239();
	fn_240();
	fn_241();
	fn_242();
	fn_243();
	fn_244();
	fn_245();
	fn_246();
	fn_247();
	fn_248();
	fn_249();
	fn_250();
	fn_251();
	fn_252();
	fn_253();
	fn_254();
	fn_255();
	fn_256();
	fn_257();
	fn_258();
	fn_259();
	fn_260();
	fn_261();
	fn_262();
	fn_263();
	fn_264();
	fn_265();
	fn_266();
	fn_267();
	fn_268();
	fn_269();
	fn_270();
	fn_271();
	fn_272();
	fn_273();
	fn_274();
	fn_275();
	fn_276();
	fn_277();
	fn_278();
	fn_279();
	fn_280();
	fn_281();
	fn_282();
	fn_283();
	fn_284();
	fn_285();
	fn_286();
	fn_287();
	fn_288();
	fn_289();
	fn_290();
	fn_291();
	fn_292();
	fn_293();
	fn_294();
	fn_295();
	fn_296();
	fn_297();
	fn_298();
	fn_299();
	printf("done\n");
	return 0;
}
