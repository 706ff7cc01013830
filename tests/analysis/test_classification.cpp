// The classification tables behind the causal model: which kernels run on matrix units
// (tensor_cores.h), what a runtime call does and which copies block the host
// (runtime_calls.h). The names are the ones the real traces in shared/traces carry, each
// group under the trace it was copied from; a few rows marked "public" are families
// those traces lack, copied from public profiles.
#ifndef Q_MOC_RUN
#include "core/analysis/kernel_role.h"
#include "core/analysis/runtime_calls.h"
#include "core/analysis/tensor_cores.h"
#include "core/trace/format_description.h"
#include "core/trace/trace_loader.h"
#include "tests/support/test_support.h"
#endif

#include <QtTest>
#include <map>
#include <set>

using namespace kinetoscope::analysis;
using namespace kinetoscope::trace;

Q_DECLARE_METATYPE(MatrixUnit)
Q_DECLARE_METATYPE(CallKind)
Q_DECLARE_METATYPE(CopyDirection)
Q_DECLARE_METATYPE(HostMemory)
Q_DECLARE_METATYPE(GpuVendor)

namespace {

std::shared_ptr<const TraceModel> loadShared(const std::string& relativePath)
{
    LoadResult result = loadTraceFile(kinetoscope::test::sharedTrace(relativePath));
    return result.ok() ? result.model : nullptr;
}

std::vector<std::string_view> kernelNames(const TraceModel& model)
{
    std::set<std::string_view> names;
    for (const Event& e : model.events())
        if (e.category == Category::Kernel)
            names.insert(model.text(e.name));
    return {names.begin(), names.end()};
}

// The direction of the first copy a launch call started (Unknown when it started none).
CopyDirection copyDirectionOf(const TraceModel& model, const Event& call)
{
    for (EventId id : model.activitiesLaunchedBy(model.idOf(call)))
        if (model.event(id).category == Category::Memcpy)
            return classifyCopy(model.text(model.event(id).name)).direction;
    return CopyDirection::Unknown;
}

// Synchronous copies the real traces lack (all times in us); CUDA and HIP names side by side.
const char* kSynchronousCopies = R"j({"traceEvents": [
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 7, "ts": 12, "dur": 2, "args": {"correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 2}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 22, "dur": 2, "args": {"correlation": 2}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpy2D", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 3}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuMemcpyDtoD_v2", "pid": 1, "tid": 1, "ts": 40, "dur": 5, "args": {"correlation": 4}},
  {"ph": "X", "cat": "cuda_driver", "name": "cuMemcpyDtoH_v2", "pid": 1, "tid": 1, "ts": 50, "dur": 5, "args": {"correlation": 5}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpy", "pid": 1, "tid": 1, "ts": 60, "dur": 5, "args": {"correlation": 6}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 62, "dur": 2, "args": {"correlation": 6}},
  {"ph": "X", "cat": "cuda_runtime", "name": "hipMemcpyDtoH", "pid": 1, "tid": 1, "ts": 70, "dur": 5, "args": {"correlation": 7}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 80, "dur": 5, "args": {"correlation": 8}},
  {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 90, "dur": 2, "args": {"correlation": 8}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamWaitEvent", "pid": 1, "tid": 1, "ts": 95, "dur": 1},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaStreamSynchronize", "pid": 1, "tid": 1, "ts": 100, "dur": 5}
]})j";

void row(const char* label, const char* name, MatrixUnit expected)
{
    QTest::newRow(label) << QString::fromUtf8(name) << expected;
}

void call(const char* name, CallKind expected)
{
    QTest::newRow(name) << QString::fromUtf8(name) << expected;
}

DeviceInfo device(const char* name, int major, int minor)
{
    DeviceInfo d;
    d.id = 0;
    d.name = name;
    d.computeMajor = major;
    d.computeMinor = minor;
    return d;
}

}  // namespace

class TestClassification : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void classifiesKernelNames_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<MatrixUnit>("expected");
        // TensorCore
        // pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_b300_sglang_qwen3_30b_a3b_decode.json.gz
        row("nvjet sm103 (cuBLASLt, B300)", "nvjet_sm103_tst_64x16_64x16_4x1_v_bz_TNT",
            MatrixUnit::TensorCore);
        row("bmm _sm100f (TensorRT-LLM, B300)",
            "bmm_Bfloat16_Bfloat16Bfloat16_Fp32_t128x8x128u2_s5_et128x8_m128x8x16_c1x1x1_16dp256b"
            "_rM_BN_transOut_schPd2x1x2x3_bN_rgTma_clmp_dynB_sm100f",
            MatrixUnit::TensorCore);
        // tracelens/b300_sglang_deepseek_r1_decode.json.gz
        row("fmhaSm100 (TensorRT-LLM, B300)",
            "fmhaSm100fKernel_QkvBfloat16OBfloat16H128PagedKvCausalP64VarSeqQ8Kv128PersistentSwap"
            "sAbForGen",
            MatrixUnit::TensorCore);
        // hta/nccl_collectives_rank0.json.gz
        row("xmma tf32 fprop (cuDNN, A100)",
            "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x128x32_st"
            "age5_warpsize2x2x1_g1_tensor16x8x8_execute_kernel_cudnn_infer",
            MatrixUnit::TensorCore);
        row("CUTLASS tf32 fprop in cuDNN",
            "void cutlass_cudnn_infer::Kernel<cutlass_tensorop_s1688fprop_optimized_tf32_128x128_"
            "16x4_nhwc_align4>(cutlass_tensorop_s1688fprop_optimized_tf32_128x128_16x4_nhwc_align"
            "4::Params)",
            MatrixUnit::TensorCore);
        row("CUTLASS mangled MmaTensorOp (cuDNN)",
            "_ZN19cutlass_cudnn_train6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threa"
            "dblock22ImplicitGemmMultistageINS_4gemm9GemmShapeILi128ELi128ELi32EEENS4_52Conv2dWgr"
            "adOutputGradientTileAccessIteratorOptimizedINS_11MatrixShapeILi128ELi32EEENS_10tfloa"
            "t32_tENS_9transform29PitchLinearWarpRakedThreadMapINS_16PitchLinearShapeILi128ELi32E"
            "EELi128ENSF_ILi8ELi4EEELi4EEENS_12AlignedArrayISC_Li4ELi16EEEEENSD_11threadblock25Re"
            "gularTileAccessIteratorISB_SC_NS_6layout40ColumnMajorTensorOpMultiplicandCongruousIL"
            "i32ELi32EEELi1ESI_Li16EEELNS_4arch14CacheOperation4KindE0ENS4_48Conv2dWgradActivatio"
            "nTileAccessIteratorOptimizedINSA_ILi32ELi128EEESC_SI_SK_EENSN_ISW_SC_NSO_37RowMajorT"
            "ensorOpMultiplicandCongruousILi32ELi32EEELi0ESI_Li16EEELSU_0ENS6_11threadblock9MmaPo"
            "licyINS6_4warp11MmaTensorOpINS7_ILi64ELi64ELi32EEESC_SQ_SC_SZ_fNSO_8RowMajorENS13_17"
            "MmaTensorOpPolicyINSS_3MmaINS7_ILi16ELi8ELi8EEELi32ESC_S16_SC_NSO_11ColumnMajorEfS16"
            "_NSS_13OpMultiplyAddEEENSA_ILi1ELi1EEEEELi1ELb0EbEENSA_ILi0ELi0EEES1G_Li1EEELi4EbEEN"
            "S_8epilogue11threadblock8EpilogueIS8_S1F_Li1ENS1K_22PredicatedTileIteratorINS1K_26Ou"
            "tputTileOptimalThreadMapINS1K_15OutputTileShapeILi128ELi8ELi2ELi1ELi1EEENS1O_ILi1ELi"
            "8ELi1ELi1ELi8EEELi128ELi4ELi32EEEfLb0ENSO_9NoPermuteELb0EEENS1J_4warp24FragmentItera"
            "torTensorOpIS15_S19_fNS_5ArrayIfLi4ELb1EEES16_EENS1U_20TileIteratorTensorOpIS15_S19_"
            "fS16_EENS1K_18SharedLoadIteratorINS1R_18CompactedThreadMapEfLi16EEENS1J_6thread17Lin"
            "earCombinationIfLi4EffLNS24_9ScaleType4KindE0ELNS_15FloatRoundStyleE2EEENSA_ILi0ELi8"
            "EEELi2ELi1EEENS11_30GemmIdentityThreadblockSwizzleILi4EEELNS1_8OperatorE2ENS1_17Conv"
            "2dProblemSizeELNS1_9GroupModeE0EEEEEvNT_6ParamsE",
            MatrixUnit::TensorCore);
        // hta/sampled_rank0.json.gz
        row("CUTLASS tensorop s1688 (A100)",
            "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_16x4_nn_align4>(cutlass_8"
            "0_tensorop_s1688gemm_128x128_16x4_nn_align4::Params)",
            MatrixUnit::TensorCore);
        // hta/capitalized_categories.json.gz
        row("CUTLASS wmma f16",
            "void cutlass::Kernel<cutlass_70_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_tn_alig"
            "n8>(cutlass_70_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8::Params)",
            MatrixUnit::TensorCore);
        // pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz
        row("hipBLASLt MI16x16 (MI300X)",
            "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x16x128_MI16x16x1_SN_LDSB1_AFC1_AF"
            "EM1_AFEM1_ASEM1_CLR1_CADS0_DTLA0_DTLB0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GS"
            "UAMBSK_GLS0_ISA942_IU1_K1_LDSTI0_LBSPPA1024_LBSPPB256_LBSPPM0_LPA16_LPB16_LPM0_LRVW8"
            "_LWPMn1_MIAV0_MIWT4_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD4_NTM0_NEPBS16_NLCA1_NLCB1_ONLL1_P"
            "GR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW4_SK0_SKFTR0_SKXCCM0_TLDS1_ULSGRO0_USL1_UI"
            "OFGRO0_USFGROn1_VSn1_VWA4_VWB1_WSGRA0_WSGRB0_WS64_WG32_4_2",
            MatrixUnit::TensorCore);
        row("CK moe gemm (MI300X)",
            "void ck::kernel_moe_gemm<ck::GridwiseMoeGemm<ck::tensor_layout::gemm::RowMajor, ck::"
            "tensor_layout::gemm::ColumnMajor, ck::Tuple<ck::tensor_layout::gemm::RowMajor, ck::t"
            "ensor_layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor>, ck::tensor_layo"
            "ut::gemm::RowMajor, unsigned short, unsigned short, float, float, ck::Tuple<float, f"
            "loat, float>, unsigned short, ck::tensor_operation::element_wise::PassThrough, ck::t"
            "ensor_operation::element_wise::PassThrough, TypeCast, (ck::tensor_operation::device:"
            ":GemmSpecialization)0, 256, 32, 64, 64, 8, 8, 16, 16, 2, 1, ck::Sequence<8, 32, 1>, "
            "ck::Sequence<1, 0, 2>, ck::Sequence<1, 0, 2>, 2, 8, 8, false, 0, ck::Sequence<8, 32,"
            " 1>, ck::Sequence<1, 0, 2>, ck::Sequence<1, 0, 2>, 2, 8, 8, false, 0, 2, 1, ck::Sequ"
            "ence<1, 32, 1, 8>, ck::Sequence<8, 1, 8>, (ck::BlockGemmPipelineScheduler)0, (ck::Bl"
            "ockGemmPipelineVersion)0, 1, false, true, false, true, int, unsigned short, unsigned"
            " short, unsigned short, unsigned short>, true, (ck::InMemoryDataOperationEnum)0, 2, "
            "(ck::TailNumber)1>(ck::GridwiseMoeGemm<ck::tensor_layout::gemm::RowMajor, ck::tensor"
            "_layout::gemm::ColumnMajor, ck::Tuple<ck::tensor_layout::gemm::RowMajor, ck::tensor_"
            "layout::gemm::ColumnMajor, ck::tensor_layout::gemm::RowMajor>, ck::tensor_layout::ge"
            "mm::RowMajor, unsigned short, unsigned short, float, float, ck::Tuple<float, float, "
            "float>, unsigned short, ck::tensor_operation::element_wise::PassThrough, ck::tensor_"
            "operation::element_wise::PassThrough, TypeCast, (ck::tensor_operation::device::GemmS"
            "pecialization)0, 256, 32, 64, 64, 8, 8, 16, 16, 2, 1, ck::Sequence<8, 32, 1>, ck::Se"
            "quence<1, 0, 2>, ck::Sequence<1, 0, 2>, 2, 8, 8, false, 0, ck::Sequence<8, 32, 1>, c"
            "k::Sequence<1, 0, 2>, ck::Sequence<1, 0, 2>, 2, 8, 8, false, 0, 2, 1, ck::Sequence<1"
            ", 32, 1, 8>, ck::Sequence<8, 1, 8>, (ck::BlockGemmPipelineScheduler)0, (ck::BlockGem"
            "mPipelineVersion)0, 1, false, true, false, true, int, unsigned short, unsigned short"
            ", unsigned short, unsigned short>::Argument)",
            MatrixUnit::TensorCore);
        row("vLLM mfma paged attention",
            "void paged_attention_ll4mi_QKV_mfma16_kernel<0, __hip_bfloat16, __hip_bfloat16, (vll"
            "m::Fp8KVCacheDataType)0, 1, 128, 256, false, 8, 1, ck_tile::ComposedAttention<0u, fa"
            "lse> >(__hip_bfloat16 const*, __hip_bfloat16 const*, __hip_bfloat16 const*, float, i"
            "nt const*, int const*, int const*, float const*, int, int, int, int, float*, float*,"
            " __hip_bfloat16*, float, float, float const*, float const*, float const*, ck_tile::C"
            "omposedAttention<0u, false> const*)",
            MatrixUnit::TensorCore);
        // hta/rocm_mi250_minitoy_train.json.gz
        row("Tensile fp32 MI16x16 (MI250)",
            "Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM"
            "1_ASEM1_CLR1_CADS0_EPS0_GRVWA1_GRVWB1_GSUAMB_ISA90a_IU1_K1_LBSPPA0_LBSPPB0_LBSPPM0_L"
            "PA0_LPB0_LPM0_LRVW1_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA0_NTB0_NTC0_NTD0_NTM0_NEPBS2_N"
            "LCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO1_SRVW0_SSO0_SVW1_TLDS0_USFGROn1_VSn1_VW"
            "A1_VWB1_WSGRA0_WSGRB0_WS64_WG64_4_1",
            MatrixUnit::TensorCore);
        // tracelens/rocm_mi300_resnet_act_checkpoint.json.gz
        row("CK xdlops bwd weight (MI300X)",
            "_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47Gridwise"
            "Gemm_bk0mk1_bk0nk1_mn_xdlops_bwd_weightILi64EttftLNS_25InMemoryDataOperationEnumE1EN"
            "S_16TensorDescriptorINS_5TupleIJNS_5EmbedINS6_IJiiEEENS6_IJiNS_17integral_constantIi"
            "Li1EEEEEELb0EEENS_8RightPadIiiLb0EEENS_11PassThroughIiEENS_7UnMergeINS6_IJiiiEEELb0E"
            "EESG_SG_SG_SE_SG_EEENS6_IJNS_8SequenceIJLi0EEEENSL_IJLi1EEEENSL_IJLi2EEEENSL_IJLi3EE"
            "EENSL_IJLi4EEEENSL_IJLi5EEEENSL_IJLi6EEEENSL_IJLi8EEEENSL_IJLi7EEEEEEENS6_IJNSL_IJLi"
            "1ELi2EEEESP_SQ_NSL_IJLi5ELi6ELi7EEEEST_NSL_IJLi9EEEENSL_IJLi10EEEENSL_IJLi11EEEENSL_"
            "IJLi12EEEEEEENSL_IJLi9ELi10ELi11ELi12EEEElEENS5_INS6_IJNS7_INS6_IJiiiiEEES15_Lb0EEES"
            "G_NS_3PadIiiiLb0EEES18_SG_SG_NS7_IS8_S8_Lb0EEES19_SG_NS_23Merge_v2_magic_divisionISI"
            "_EES1B_SE_SG_SJ_SG_SG_SG_SE_SG_EEENS6_IJSM_SN_SO_SP_SQ_SR_SS_SU_ST_NSL_IJLi10ELi12EL"
            "i14EEEENSL_IJLi9ELi11ELi13EEEENSL_IJLi16EEEENSL_IJLi15EEEENSL_IJLi17EEEENSL_IJLi18EE"
            "EENSL_IJLi19EEEENSL_IJLi20EEEENSL_IJLi22EEEENSL_IJLi21EEEEEEENS6_IJNSL_IJLi1ELi2ELi3"
            "ELi4EEEESR_SS_SU_ST_SY_NSL_IJLi10ELi11EEEENSL_IJLi12ELi13EEEENSL_IJLi14EEEES1G_S1F_S"
            "1H_S1I_NSL_IJLi19ELi20ELi21EEEES1L_NSL_IJLi23EEEENSL_IJLi24EEEENSL_IJLi25EEEENSL_IJL"
            "i26EEEEEEENSL_IJLi23ELi24ELi25ELi26EEEElEENS5_INS6_IJSC_SE_SE_EEENS6_IJSM_SN_SO_EEEN"
            "S6_IJSW_SP_SQ_EEENSL_IJLi3ELi4EEEElEENS0_12element_wise11PassThroughES26_S26_Li64ELi"
            "64ELi4ELi32ELi32ELi8ELi2ELi2ENSL_IJLi1ELi4ELi8ELi2EEEENSL_IJLi0ELi3ELi1ELi2EEEENSL_I"
            "JLi0ELi2ELi1ELi3EEEELi2ELi8ELi4ELb0ELb1ELi8ELi8ELi4ES27_S28_S29_Li2ELi8ELi4ELb0ELb1E"
            "Li8ELi8ELi4ELi1ELi1ELi8ENSL_IJLi1ELi16ELi1ELi4EEEELb1ELb1ELi1ELNS_15PipelineVersionE"
            "0EttEEtttS26_S26_S26_S14_S1Z_NS5_INS6_IJSC_SE_SE_NSH_INS6_IJiNS9_IiLi64EEEEEELb0EEES"
            "2F_EEENS6_IJSM_SN_SO_SP_SQ_EEENS6_IJSW_SP_SQ_NSL_IJLi5ELi6EEEENSL_IJLi7ELi8EEEEEEENS"
            "L_IJLi5ELi6ELi7ELi8EEEElEENS_38BlockToCTileMap_KSplit_M00_N00_M01_N01ILi64ELi64ES24_"
            "Lb0EEENS1_30ComputePtrOffsetOfStridedBatchILi1ELi1ELi0EvEELb1EEEvPKT0_PKT1_PT2_T3_T4"
            "_T5_iT6_T7_T8_T9_T10_",
            MatrixUnit::TensorCore);
        row("CK xdl grouped conv (MI300X)",
            "_ZN2ck16tensor_operation6device12_GLOBAL__N_139kernel_grouped_conv_fwd_xdl_cshuffle_"
            "v3INS_28GridwiseGemm_xdl_cshuffle_v3INS_13tensor_layout4gemm8RowMajorENS6_11ColumnMa"
            "jorES7_ttfttNS0_12element_wise11PassThroughESA_SA_LNS1_18GemmSpecializationE7ELi256E"
            "Li64ELi64ELi64ELi8ELi8ELi32ELi32ELi1ELi1ENS_8SequenceIJLi8ELi32ELi1EEEENSC_IJLi1ELi0"
            "ELi2EEEESE_Li2ELi8ELi8ELb0ELi0ESD_SE_SE_Li2ELi8ELi8ELb0ELi0ELi1ELi1ENSC_IJLi1ELi32EL"
            "i1ELi8EEEELi8ELNS_26BlockGemmPipelineSchedulerE0ELNS_24BlockGemmPipelineVersionE2Ett"
            "Lb0ELb0EEENS_16TensorDescriptorINS_5TupleIJNS_5EmbedINSK_IJiiiiEEESM_Lb0EEENS_11Pass"
            "ThroughIiEENS_3PadIiiiLb0EEESR_SP_SP_NSL_INSK_IJiiEEESS_Lb0EEEST_SP_NS_23Merge_v2_ma"
            "gic_divisionINSK_IJiiiEEEEESW_NS_8RightPadIiiLb0EEESY_NS_7UnMergeISS_Lb0EEESP_EEENSK"
            "_IJNSC_IJLi0EEEENSC_IJLi1EEEENSC_IJLi2EEEENSC_IJLi3EEEENSC_IJLi4EEEENSC_IJLi5EEEENSC"
            "_IJLi6EEEENSC_IJLi7EEEENSC_IJLi8EEEENSC_IJLi9ELi11ELi13EEEENSC_IJLi10ELi12ELi14EEEEN"
            "SC_IJLi15EEEENSC_IJLi16EEEENSC_IJLi18EEEENSC_IJLi17EEEEEEENSK_IJNSC_IJLi1ELi2ELi3ELi"
            "4EEEES17_S18_S19_S1A_NSC_IJLi9EEEENSC_IJLi10ELi11EEEENSC_IJLi12ELi13EEEENSC_IJLi14EE"
            "EES1D_S1E_S1G_S1F_NSC_IJLi19ELi20EEEENSC_IJLi21EEEEEEENSC_IJLi19ELi21ELi20EEEElEENSJ"
            "_INSK_IJS10_SY_SY_S10_SP_EEENSK_IJS12_S13_S14_S16_S15_EEENSK_IJNSC_IJLi1ELi2EEEES15_"
            "S16_NSC_IJLi5ELi6EEEES19_EEENSC_IJLi5ELi7ELi6EEEElEENSJ_INSK_IJST_SY_SY_NSZ_INSK_IJi"
            "NS_17integral_constantIiLi64EEEEEELb0EEES22_EEENSK_IJS12_S13_S14_S15_S16_EEENSK_IJS1"
            "U_S15_S16_S1V_NSC_IJLi7ELi8EEEEEEENSC_IJLi5ELi6ELi7ELi8EEEElEENS1_30ComputePtrOffset"
            "OfStridedBatchILi1ELi1ELi0EvEELb1ELNS_25InMemoryDataOperationEnumE0ELi1ELNS_10TailNu"
            "mberE10EEEvNT_8ArgumentET0_T1_T2_T3_S2I_i",
            MatrixUnit::TensorCore);
        row("MIOpen igemm gtcx3 (MI300X)",
            "igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1"
            "x64_tb1x8x2x1_1x4x1x64_gkgs",
            MatrixUnit::TensorCore);
        // tracelens/mi300x_sglang_qwen3_8b_prefill_decode.json.gz
        row("CK tile fmha prefill (MI300X)",
            "_ZN7ck_tile6kentryILi2ENS_38FmhaBatchPrefillWithPagedKVCacheKernelINS_40BlockFmhaBat"
            "chPrefillPipelineQRKSVSAsyncINS_36BlockFmhaBatchPrefillPipelineProblemIDF16bDF16bDF1"
            "6bffDF16bhfDF16bfDF16bNS_13TileFmhaShapeINS_8sequenceIJLi128ELi128ELi32ELi128ELi32EL"
            "i128EEEENS5_IJLi4ELi1ELi1EEEENS5_IJLi32ELi32ELi16EEEES7_S8_Lb1EEELb1ENS_17ComposedAt"
            "tentionILj0ELb1EEENS_30SimplifiedGenericAttentionMaskILb1EEELb0ELi1ENS_26TileFmhaBat"
            "chPrefillTraitsILb1ELb1ELb1ELb1ELb0ELNS_22BlockAttentionBiasEnumE0ELb0ELb0ELb0ELNS_2"
            "8BlockAttentionQuantScaleEnumE0ELin1ELb0ELb0ELi1ELNS_37BlockAttentionKVCacheMemoryLa"
            "youtEnumE1ELNS_36BlockAttentionKVCacheLookupTableEnumE1ELNS_33BlockAttentionKVCacheL"
            "oadModeEnumE0EEEEENS_53BlockFmhaBatchPrefillPipelineQRKSVSAsyncDefaultPolicyEEENS_17"
            "Default2DEpilogueINS_24Default2DEpilogueProblemIfDF16bLb1ELb1ELb1EEEvEEEEJNSS_21Fmha"
            "FwdGroupModeKargsEEEEvDpT1_",
            MatrixUnit::TensorCore);
        // tracelens/torch_compile_triton.json.gz
        row("Triton attn_fwd (MI300X)", "attn_fwd", MatrixUnit::TensorCore);
        // tracelens/mi300x_vllm_piecewise_graph_replay.json.gz
        row("triton_kernels matmul_ogs", "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1",
            MatrixUnit::TensorCore);
        // Simt
        // hta/diff_control.json.gz
        row("ampere_sgemm", "ampere_sgemm_128x64_nn", MatrixUnit::Simt);
        // hta/allreduce_memory_rank1.json.gz
        row("volta_sgemm", "volta_sgemm_128x64_tn", MatrixUnit::Simt);
        // gpupuzzlers/gp100_first_launch_1580ms.json.gz
        row("maxwell_sgemm (GP100)", "maxwell_sgemm_128x64_nn", MatrixUnit::Simt);
        // kineto/resnet50_bare_array_2020.pt.trace.json.gz
        row("volta_scudnn", "volta_scudnn_128x64_relu_interior_nn_v1", MatrixUnit::Simt);
        row("implicit_convolve_sgemm",
            "void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true"
            ">(int, int, int, float const*, int, float*, float const*, kernel_conv_params, unsign"
            "ed long long, int, float, float, int, float const*, float const*, bool, int, int)",
            MatrixUnit::Simt);
        row("winograd nonfused",
            "void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(cudnn::winograd_"
            "nonfused::WinogradDataParams<float, float>)",
            MatrixUnit::Simt);
        // hta/a100_simple_add_first_call_24s.json.gz
        row("cudnn_ampere_scudnn", "cudnn_ampere_scudnn_128x64_relu_xregs_large_nn_v1",
            MatrixUnit::Simt);
        row("FFT complex gemm", "ampere_gcgemm_64x64_nt", MatrixUnit::Simt);
        // param/resnet_rtx2080ti_no_steps.json.gz
        row("scudnn winograd", "cudnn_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1",
            MatrixUnit::Simt);
        row("cuDNN dgrad engine",
            "void cudnn::detail::dgrad_engine<float, 128, 6, 7, 3, 3, 5, false>(int, int, int, fl"
            "oat const*, int, float const*, int, float*, kernel_grad_params, unsigned long long, "
            "int, unsigned long long, int, float, int, int, int)",
            MatrixUnit::Simt);
        // misc/aipe_b200_deepseek_v3_train_step.json.gz
        row("cutlass3x sm100 simt sgemm (B200)",
            "cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_32x32x16_1x1x1_3_nnn_align1_bias_f32_"
            "relu",
            MatrixUnit::Simt);
        row("CUTLASS 2 simt sgemm (B200)",
            "void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>(cutlass_80_simt_sge"
            "mm_64x64_8x5_nn_align1::Params)",
            MatrixUnit::Simt);
        row("gemmSN",
            "void gemmSN_TN_kernel<float, 128, 16, 2, 4, 6, 7, false, cublasGemvTensorStridedBatc"
            "hed<float const>, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStrid"
            "edBatched<float> >(cublasGemmSmallNParams<cublasGemvTensorStridedBatched<float const"
            ">, cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatched<float"
            ">, float>)",
            MatrixUnit::Simt);
        // hta/diff_test.json.gz
        row("magma_sgemmEx",
            "void magma_sgemmEx_kernel<float, float, float, false, false, 6, 3, 5, 3, 3>(int, int"
            ", int, Tensor, int, Tensor, int, Tensor, int, Tensor, int, int, int, float const*, f"
            "loat const*, float, float, int, cublasLtEpilogue_t, int, void const*, long)",
            MatrixUnit::Simt);
        // hta/sampled_rank0.json.gz
        row("sgemm_largek",
            "void sgemm_largek_lds64<true, true, 6, 3, 4, 5, 2, 66>(float*, float const*, float c"
            "onst*, int, int, int, int, int, int, float const*, float const*, float, float, int, "
            "int, int*, int*)",
            MatrixUnit::Simt);
        // gpupuzzlers/torch_compile_fusion.json.gz
        row("gemv2T",
            "void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 2, 2, false, f"
            "alse, cublasGemvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensor"
            "StridedBatched<float const>, cublasGemvTensorStridedBatched<float>, float> >(cublasG"
            "emvParams<cublasGemvTensorStridedBatched<float const>, cublasGemvTensorStridedBatche"
            "d<float const>, cublasGemvTensorStridedBatched<float>, float>, float, float)",
            MatrixUnit::Simt);
        // hta/capitalized_categories.json.gz
        row("gemmk1 fp16 data",
            "void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStride"
            "dBatched<__half const>, cublasGemvTensorStridedBatched<__half const>, cublasGemvTens"
            "orStridedBatched<__half>, float, true, true>(cublasGemmk1Params<float, cublasGemvTen"
            "sorStridedBatched<__half const>, cublasGemvTensorStridedBatched<__half const>, cubla"
            "sGemvTensorStridedBatched<__half>, float, biasType<cublasGemvTensorStridedBatched<__"
            "half>::value_type, float>::type>)",
            MatrixUnit::Simt);
        // Unknown
        // kineto/resnet50_v100_workers0_2021.pt.trace.json.gz
        row("elementwise",
            "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<"
            "float>(at::TensorIteratorBase&, float, float)::{lambda(float, float)#1}, at::detail:"
            ":Array<char*, 3> >(int, at::native::threshold_kernel_impl<float>(at::TensorIteratorB"
            "ase&, float, float)::{lambda(float, float)#1}, at::detail::Array<char*, 3>)",
            MatrixUnit::Unknown);
        // hta/nccl_collectives_rank0.json.gz
        row("NCCL",
            "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
            MatrixUnit::Unknown);
        row("CUTLASS split-K reduce in cuDNN",
            "void cutlass_cudnn_train::Kernel<cutlass_cudnn_train::reduction::kernel::ReduceSplit"
            "K<cutlass_cudnn_train::MatrixShape<4, 128>, cutlass_cudnn_train::epilogue::thread::L"
            "inearCombination<float, 4, float, float, (cutlass_cudnn_train::epilogue::thread::Sca"
            "leType::Kind)0, (cutlass_cudnn_train::FloatRoundStyle)2>, cutlass_cudnn_train::reduc"
            "tion::thread::ReduceAdd<float, float, 4>, 4> >(cutlass_cudnn_train::reduction::kerne"
            "l::ReduceSplitK<cutlass_cudnn_train::MatrixShape<4, 128>, cutlass_cudnn_train::epilo"
            "gue::thread::LinearCombination<float, 4, float, float, (cutlass_cudnn_train::epilogu"
            "e::thread::ScaleType::Kind)0, (cutlass_cudnn_train::FloatRoundStyle)2>, cutlass_cudn"
            "n_train::reduction::thread::ReduceAdd<float, float, 4>, 4>::Params)",
            MatrixUnit::Unknown);
        // tracelens/torch_compile_triton.json.gz
        row("Triton pointwise", "triton_poi_fused__unsafe_view_mul_silu_2", MatrixUnit::Unknown);
        row("Triton reduction", "triton_red_fused_add_mean_mul_pow_rsqrt_0", MatrixUnit::Unknown);
        // tracelens/rocm_mi210_gpu_only.json.gz
        row("MIOpen SubTensorOp", "SubTensorOpWithScalar1d", MatrixUnit::Unknown);
        // tracelens/b300_sglang_deepseek_r1_decode.json.gz
        row("FlashInfer norm in CuTe DSL",
            "kernel_cutlass_kernel_flashinfernormkernelsrmsnormRMSNormKernel_object_at__tensorptr"
            "bf16gmemalign128o409640961_tensorptrbf16gmemalign16o40961_tensorptrbf16gmemalign128o"
            "409640961___True_2__0",
            MatrixUnit::Unknown);
        // pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_b300_sglang_qwen3_30b_a3b_decode.json.gz
        row("cuBLASLt split-K reduce",
            "void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bf"
            "loat16, false, float, __nv_bfloat16, __nv_bfloat16, true, false, false, false>(cubla"
            "sLt::cublasSplitKParams<float>, float const*, __nv_bfloat16 const*, float*, __nv_bfl"
            "oat16*, float const*, float const*, __nv_bfloat16 const*, float const*, __nv_bfloat1"
            "6*, void*, long, float*, int*, float*, float*, float const*, float const*, float con"
            "st*, float const*, float const*)",
            MatrixUnit::Unknown);
        // pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz
        row("vLLM paged attention reduce",
            "void paged_attention_ll4mi_reduce_kernel<__hip_bfloat16, __hip_bfloat16, 128, 128, 2"
            "56, 3, false>(__hip_bfloat16*, float const*, float const*, __hip_bfloat16 const*, in"
            "t const*, int const*, int, int, float const*)",
            MatrixUnit::Unknown);
        row("aiter rmsnorm",
            "_ZN5aiter24add_rmsnorm_quant_kernelIDF16bDF16bLi256ELi8ELb0ELb0ELb1ELi1EEEvPT0_PT_Pf"
            "S4_S4_S4_diiiiiiib",
            MatrixUnit::Unknown);
        // tracelens/mi300x_vllm_piecewise_graph_replay.json.gz
        row("triton_kernels finalize scatter", "_finalize_matmul_scatter_bf16",
            MatrixUnit::Unknown);
        row("vLLM unified attention", "kernel_unified_attention_2d", MatrixUnit::Unknown);
        // kineto/resnet50_bare_array_2020.pt.trace.json.gz
        row("cuDNN batch norm",
            "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>(cudnnTensorStruct,"
            " float const*, cudnnTensorStruct, float*, float const*, float const*, float, float, "
            "float*, float*, float*, float*, float, float)",
            MatrixUnit::Unknown);
        row("cuDNN im2col",
            "void cudnn::cnn::im2col4d_kernel<float, long>(cudnn::cnn::im2col4d_params, cudnnConv"
            "olutionStruct, cudnnTensor4dStruct, float const*, float*)",
            MatrixUnit::Unknown);
        // tracelens/rocm_mi300_resnet_act_checkpoint.json.gz
        row("MIOpen transpose", "batched_transpose_32x32_half", MatrixUnit::Unknown);
        // public: families the shared traces lack (cuBLAS, PyTorch profiles in public repos)
        row("public volta_h884gemm", "volta_h884gemm_64x64_nt", MatrixUnit::TensorCore);
        row("public fp32 xmma with ffma",
            "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_"
            "aligna4_alignc4_execute_kernel__5x_cublas",
            MatrixUnit::Simt);
        row("public volta_gcgemm", "volta_gcgemm_32x32_nt", MatrixUnit::Simt);
        row("public mem-efficient attention fp32 sm80",
            "fmha_cutlassF_f32_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel<float,"
            " "
            "cutlass::arch::Sm80, true, 64, 64, 64, true, true>::Params)",
            MatrixUnit::TensorCore);
        row("public mem-efficient attention fp32 sm75", "fmha_cutlassF_f32_aligned_64x64_rf_sm75",
            MatrixUnit::Simt);
        row("public flash attention 2 forward", "pytorch_flash::flash_fwd_kernel",
            MatrixUnit::TensorCore);
        row("public flash attention 2 dot(dO, O)",
            "void pytorch_flash::flash_bwd_dot_do_o_kernel<true, ...>", MatrixUnit::Unknown);
    }
    void classifiesKernelNames()
    {
        QFETCH(QString, name);
        QFETCH(MatrixUnit, expected);
        const std::string text = name.toStdString();
        QCOMPARE(matrixUnitOf(text), expected);
        QCOMPARE(isTensorCoreKernel(text), expected == MatrixUnit::TensorCore);
    }

    void classifiesRuntimeCalls_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<CallKind>("expected");
        // Every runtime and driver name in the shared traces (cuda_runtime, Runtime,
        // cuda_driver), CUDA and HIP.
        call("cudaLaunchKernel", CallKind::KernelLaunch);
        call("cudaLaunchKernelExC", CallKind::KernelLaunch);
        call("cuLaunchKernel", CallKind::KernelLaunch);
        call("cuLaunchKernelEx", CallKind::KernelLaunch);
        call("hipLaunchKernel", CallKind::KernelLaunch);
        call("hipExtLaunchKernel", CallKind::KernelLaunch);
        call("hipModuleLaunchKernel", CallKind::KernelLaunch);
        call("hipExtModuleLaunchKernel", CallKind::KernelLaunch);
        call("runFunction - job_prep_and_submit_for_execution", CallKind::KernelLaunch);  // MTIA
        call("mtiaLaunchKernel", CallKind::KernelLaunch);
        call("cudaGraphLaunch", CallKind::GraphLaunch);
        call("hipGraphLaunch", CallKind::GraphLaunch);
        call("cudaMemcpy", CallKind::Copy);
        call("cudaMemcpyAsync", CallKind::Copy);
        call("hipMemcpyAsync", CallKind::Copy);
        call("hipMemcpyWithStream", CallKind::Copy);
        call("cudaMemsetAsync", CallKind::Memset);
        call("hipMemsetAsync", CallKind::Memset);
        call("cudaStreamSynchronize", CallKind::Synchronize);
        call("cudaDeviceSynchronize", CallKind::Synchronize);
        call("cudaEventSynchronize", CallKind::Synchronize);
        call("hipDeviceSynchronize", CallKind::Synchronize);
        call("hipEventSynchronize", CallKind::Synchronize);
        call("cudaStreamWaitEvent", CallKind::StreamWait);
        call("hipStreamWaitEvent", CallKind::StreamWait);
        call("cudaMalloc", CallKind::Allocation);
        call("cudaFree", CallKind::Allocation);
        call("cudaHostAlloc", CallKind::Allocation);
        call("hipMalloc", CallKind::Allocation);
        for (const char* other : {"INVALID",
                                  "cudaDeviceGetAttribute",
                                  "cudaDeviceGetStreamPriorityRange",
                                  "cudaDriverGetVersion",
                                  "cudaEventElapsedTime",
                                  "cudaEventQuery",
                                  "cudaEventRecord",
                                  "cudaEventRecordWithFlags",
                                  "cudaFuncGetAttributes",
                                  "cudaFuncSetAttribute",
                                  "cudaGetDeviceCount",
                                  "cudaGetDeviceProperties",
                                  "cudaGetSymbolAddress",
                                  "cudaHostGetDevicePointer",
                                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                                  "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
                                  "cudaPeekAtLastError",
                                  "cudaPointerGetAttributes",
                                  "cudaStreamCreateWithFlags",
                                  "cudaStreamCreateWithPriority",
                                  "cudaStreamGetCaptureInfo",
                                  "cudaStreamGetCaptureInfo_v2",
                                  "cudaStreamGetPriority",
                                  "cudaStreamIsCapturing",
                                  "hipCtxGetCurrent",
                                  "hipDeviceGetAttribute",
                                  "hipDriverGetVersion",
                                  "hipEventDestroy",
                                  "hipGetDevicePropertiesR0600",
                                  "hipPointerGetAttribute",
                                  "hipStreamGetCaptureInfo",
                                  "hipStreamGetCaptureInfo_v2",
                                  "hipStreamGetDevice",
                                  "hipStreamIsCapturing"})
            call(other, CallKind::Other);
        // From the CUDA and HIP APIs: the kinds and spellings the traces lack.
        call("cudaLaunchCooperativeKernel", CallKind::KernelLaunch);
        call("cudaLaunchKernel_ptsz", CallKind::KernelLaunch);
        call("hipLaunchKernel_spt", CallKind::KernelLaunch);
        call("cudaStreamBeginCapture", CallKind::GraphCapture);
        call("cudaStreamEndCapture", CallKind::GraphCapture);
        call("cudaGraphInstantiateWithFlags", CallKind::GraphCapture);
        call("hipStreamBeginCapture", CallKind::GraphCapture);
        call("hipGraphInstantiate", CallKind::GraphCapture);
        call("cudaMemcpy2D", CallKind::Copy);
        call("cudaMemcpy2DAsync", CallKind::Copy);
        call("cudaMemcpyPeerAsync", CallKind::Copy);
        call("cuMemcpyDtoH_v2", CallKind::Copy);
        call("cuMemcpyHtoDAsync_v2", CallKind::Copy);
        call("hipMemcpy", CallKind::Copy);
        call("hipMemcpyDtoH", CallKind::Copy);
        call("hipMemset", CallKind::Memset);
        call("cuStreamSynchronize", CallKind::Synchronize);
        call("cuCtxSynchronize", CallKind::Synchronize);
        call("hipStreamSynchronize", CallKind::Synchronize);
        call("cudaMallocHost", CallKind::Allocation);
        call("cudaFreeHost", CallKind::Allocation);
        call("cudaMallocAsync", CallKind::Allocation);
        call("cuMemAlloc_v2", CallKind::Allocation);
        call("cuMemFree_v2", CallKind::Allocation);
        call("hipHostMalloc", CallKind::Allocation);
        call("hipFree", CallKind::Allocation);
        call("cuModuleLoadData", CallKind::ModuleLoad);
        call("cuLibraryLoadData", CallKind::ModuleLoad);
        call("cuModuleGetFunction", CallKind::ModuleLoad);
        call("hipModuleLoadData", CallKind::ModuleLoad);
        call("cudaLaunchHostFunc", CallKind::Other);  // runs a host function, not a kernel
    }
    void classifiesRuntimeCalls()
    {
        QFETCH(QString, name);
        QFETCH(CallKind, expected);
        QCOMPARE(classifyRuntimeCall(name.toStdString()), expected);
    }

    void namesEveryCallKind()
    {
        std::set<std::string> names;
        for (int k = 0; k <= int(CallKind::Other); ++k)
            names.insert(callKindName(CallKind(k)));
        QCOMPARE(names.size(), size_t(int(CallKind::Other) + 1));
        QCOMPARE(QString(callKindName(CallKind::StreamWait)), QString("stream_wait"));
        QCOMPARE(QString(callKindName(CallKind::KernelLaunch)), QString("kernel_launch"));
    }

    // What the name alone says, where the real traces have no example: CUDA's synchronous
    // copies wait unless both sides are device memory; HIP's always wait.
    void blocksOnSynchronousCopies()
    {
        LoadResult loaded = loadTraceText(kSynchronousCopies);
        QVERIFY(loaded.ok());
        const auto& model = loaded.model;
        std::vector<std::pair<std::string, bool>> byName;  // in time order
        for (const Event& e : model->events())
            if (isLaunchCall(e.category))
                byName.emplace_back(std::string(model->text(e.name)), blocksHost(*model, e));
        const std::vector<std::pair<std::string, bool>> expected = {
            {"cudaMemcpy", true},    // HtoD
            {"cudaMemcpy", false},   // DtoD: "no host-side synchronization"
            {"cudaMemcpy2D", true},  // no copy recorded: the name says synchronous
            {"cuMemcpyDtoD_v2", false},
            {"cuMemcpyDtoH_v2", true},
            {"hipMemcpy", true},  // DtoD, still synchronous in HIP
            {"hipMemcpyDtoH", true},
            {"cudaMemcpyAsync", false},  // pinned
            {"cudaStreamWaitEvent", false},
            {"cudaStreamSynchronize", true},
        };
        QCOMPARE(byName, expected);
    }

    void classifiesCopies_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<CopyDirection>("direction");
        QTest::addColumn<HostMemory>("memory");
        // Every memcpy name in the shared traces (gpu_memcpy and Memcpy)...
        QTest::newRow("HtoD pageable") << QString("Memcpy HtoD (Pageable -> Device)")
                                       << CopyDirection::HostToDevice << HostMemory::Pageable;
        QTest::newRow("HtoD pinned") << QString("Memcpy HtoD (Pinned -> Device)")
                                     << CopyDirection::HostToDevice << HostMemory::Pinned;
        QTest::newRow("DtoH pageable") << QString("Memcpy DtoH (Device -> Pageable)")
                                       << CopyDirection::DeviceToHost << HostMemory::Pageable;
        QTest::newRow("DtoH pinned") << QString("Memcpy DtoH (Device -> Pinned)")
                                     << CopyDirection::DeviceToHost << HostMemory::Pinned;
        QTest::newRow("DtoD") << QString("Memcpy DtoD (Device -> Device)")
                              << CopyDirection::DeviceToDevice << HostMemory::Unknown;
        QTest::newRow("ROCm HtoD") << QString("Memcpy HtoD (Host -> Device)")
                                   << CopyDirection::HostToDevice << HostMemory::Unknown;
        // ...and those of CUPTI's other kinds and of roctracer's older activity names.
        QTest::newRow("PtoP") << QString("Memcpy PtoP (Device -> Device)")
                              << CopyDirection::PeerToPeer << HostMemory::Unknown;
        QTest::newRow("HtoH") << QString("Memcpy HtoH (Pinned -> Pageable)")
                              << CopyDirection::HostToHost << HostMemory::Pageable;
        QTest::newRow("roctracer HtoD")
            << QString("CopyHostToDevice") << CopyDirection::HostToDevice << HostMemory::Unknown;
        QTest::newRow("roctracer DtoH")
            << QString("CopyDeviceToHost") << CopyDirection::DeviceToHost << HostMemory::Unknown;
        QTest::newRow("roctracer DtoD") << QString("CopyDeviceToDevice")
                                        << CopyDirection::DeviceToDevice << HostMemory::Unknown;
        QTest::newRow("a memset") << QString("Memset (Device)") << CopyDirection::Unknown
                                  << HostMemory::Unknown;
    }
    void classifiesCopies()
    {
        QFETCH(QString, name);
        QFETCH(CopyDirection, direction);
        QFETCH(HostMemory, memory);
        const CopyKind kind = classifyCopy(name.toStdString());
        QCOMPARE(kind.direction, direction);
        QCOMPARE(kind.hostMemory, memory);
    }

    // 100 device-to-host copies into pageable memory, then the same into pinned memory;
    // both files also copy 100 times from pageable memory to the device.
    void blocksOnPageableAsyncCopies_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("blockingDtoH");
        QTest::newRow("pageable") << QString(
                                         "pairs/streams_pageable_vs_pinned/"
                                         "gpupuzzlers_a100_dtoh_pageable_blocking_before.json.gz")
                                  << 100;
        QTest::newRow("pinned") << QString("pairs/streams_pageable_vs_pinned/"
                                           "gpupuzzlers_a100_dtoh_pinned_nonblocking_after.json.gz")
                                << 0;
    }
    void blocksOnPageableAsyncCopies()
    {
        QFETCH(QString, file);
        QFETCH(int, blockingDtoH);
        const auto model = loadShared(file.toStdString());
        QVERIFY(model);
        std::map<CopyDirection, int> calls, blocking;
        for (const Event& e : model->events()) {
            if (!isLaunchCall(e.category) || model->text(e.name) != "cudaMemcpyAsync")
                continue;
            const CopyDirection direction = copyDirectionOf(*model, e);
            ++calls[direction];
            blocking[direction] += blocksHost(*model, e);
        }
        QCOMPARE(calls[CopyDirection::DeviceToHost], 100);
        QCOMPARE(blocking[CopyDirection::DeviceToHost], blockingDtoH);
        QCOMPARE(calls[CopyDirection::HostToDevice], 100);
        QCOMPARE(blocking[CopyDirection::HostToDevice], 100);  // staged through a driver buffer
        QCOMPARE(int(calls.size()), 2);
    }

    void blocksOnSynchronousHipCopies()
    {
        const auto model = loadShared("tracelens/mi300x_sglang_qwen3_8b_prefill_decode.json.gz");
        QVERIFY(model);
        std::map<std::string_view, std::pair<int, int>> byName;  // name -> (calls, blocking)
        for (const Event& e : model->events()) {
            const std::string_view name = model->text(e.name);
            if (isLaunchCall(e.category) && classifyRuntimeCall(name) == CallKind::Copy) {
                ++byName[name].first;
                byName[name].second += blocksHost(*model, e);
            }
        }
        // hipMemcpyWithStream waits for its copy whatever the memory (here 2 host-to-device
        // and 3 device-to-device); the 2 device-to-device hipMemcpyAsync do not.
        QCOMPARE(byName["hipMemcpyWithStream"], std::make_pair(5, 5));
        QCOMPARE(byName["hipMemcpyAsync"], std::make_pair(2, 0));
        QCOMPARE(byName.size(), size_t(2));
    }

    // On real traces: every synchronisation blocks; launches, stream waits, allocations
    // and queries never do.
    void blocksOnlyWhereTheKindSays_data()
    {
        QTest::addColumn<QString>("file");
        QTest::newRow("A100, cuda_sync") << QString("hta/a100_simple_add_first_call_24s.json.gz");
        QTest::newRow("B300, CUDA graphs")
            << QString("tracelens/b300_sglang_deepseek_r1_decode.json.gz");
        QTest::newRow("MI300X, HIP graphs")
            << QString("pairs/qwen3_30b_a3b_decode_b300_vs_mi300x/"
                       "tracelens_mi300x_sglang_qwen3_30b_a3b_decode.json.gz");
    }
    void blocksOnlyWhereTheKindSays()
    {
        QFETCH(QString, file);
        const auto model = loadShared(file.toStdString());
        QVERIFY(model);
        std::map<CallKind, std::pair<int, int>> byKind;  // kind -> (calls, blocking)
        for (const Event& e : model->events()) {
            if (!isLaunchCall(e.category))
                continue;
            const CallKind kind = classifyRuntimeCall(model->text(e.name));
            ++byKind[kind].first;
            byKind[kind].second += blocksHost(*model, e);
        }
        QVERIFY(byKind[CallKind::Synchronize].first > 0);
        QCOMPARE(byKind[CallKind::Synchronize].second, byKind[CallKind::Synchronize].first);
        QVERIFY(byKind[CallKind::KernelLaunch].first > 0);
        QVERIFY(byKind[CallKind::StreamWait].first + byKind[CallKind::GraphLaunch].first > 0);
        for (CallKind kind : {CallKind::KernelLaunch, CallKind::GraphLaunch, CallKind::GraphCapture,
                              CallKind::StreamWait, CallKind::Allocation, CallKind::ModuleLoad,
                              CallKind::Memset, CallKind::Other})
            QVERIFY2(byKind[kind].second == 0, callKindName(kind));
    }

    void knowsWhichDevicesHaveMatrixUnits()
    {
        TraceMetadata v100;
        v100.devices = {device("Tesla V100-SXM2-32GB", 7, 0)};
        TraceMetadata gp100;
        gp100.devices = {device("Quadro GP100", 6, 0)};
        const TraceMetadata none;
        const std::vector<std::string_view> noKernels;
        const std::vector<std::string_view> fp32Volta = {"volta_sgemm_128x64_tn"};
        const std::vector<std::string_view> fp32Pascal = {"maxwell_sgemm_128x64_nn"};

        QVERIFY(hasMatrixUnits(v100, GpuVendor::Nvidia, noKernels));
        QVERIFY(!hasMatrixUnits(gp100, GpuVendor::Nvidia, fp32Volta));  // the device list wins
        QVERIFY(!hasMatrixUnits(v100, GpuVendor::Mtia, fp32Volta));
        QVERIFY(!hasMatrixUnits(v100, GpuVendor::None, noKernels));
        // No device list: the architecture in the kernel names tells.
        QVERIFY(hasMatrixUnits(none, GpuVendor::Nvidia, fp32Volta));
        QVERIFY(!hasMatrixUnits(none, GpuVendor::Nvidia, fp32Pascal));
        QVERIFY(!hasMatrixUnits(none, GpuVendor::Nvidia, noKernels));

        TraceMetadata radeon;  // what ROCm wrote for the MI250 of hta/rocm_mi250_minitoy_train
        radeon.devices = {device("AMD Radeon Graphics", 9, 0)};
        QVERIFY(!hasMatrixUnits(radeon, GpuVendor::Amd, {"triton_poi_fused_add_cos_sin_0"}));
        TraceMetadata mi210;
        mi210.devices = {device("AMD Instinct MI210", 9, 0)};
        QVERIFY(hasMatrixUnits(mi210, GpuVendor::Amd, noKernels));
    }

    void knowsWhichDevicesHaveMatrixUnitsInRealTraces_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<GpuVendor>("vendor");
        QTest::addColumn<bool>("expected");
        QTest::newRow("V100")
            << QString("param/dlrm_8_ranks/worker0_step_12.1694128201545.pt.trace.json.gz")
            << GpuVendor::Nvidia << true;
        QTest::newRow("GP100") << QString("gpupuzzlers/gp100_first_launch_1580ms.json.gz")
                               << GpuVendor::Nvidia << false;
        QTest::newRow("B300") << QString("tracelens/b300_sglang_deepseek_r1_decode.json.gz")
                              << GpuVendor::Nvidia << true;
        // "AMD Radeon Graphics", 9.0: the Tensile MFMA kernels tell.
        QTest::newRow("MI250") << QString("hta/rocm_mi250_minitoy_train.json.gz") << GpuVendor::Amd
                               << true;
        // Blank device names, 9.4 (gfx942).
        QTest::newRow("MI300X unnamed")
            << QString("tracelens/mi300x_vllm_piecewise_graph_replay.json.gz") << GpuVendor::Amd
            << true;
    }
    void knowsWhichDevicesHaveMatrixUnitsInRealTraces()
    {
        QFETCH(QString, file);
        QFETCH(GpuVendor, vendor);
        QFETCH(bool, expected);
        const auto model = loadShared(file.toStdString());
        QVERIFY(model);
        QCOMPARE(detectGpuVendor(*model), vendor);
        QCOMPARE(hasMatrixUnits(model->metadata(), vendor, kernelNames(*model)), expected);
    }

    void tellsTensorCoreEligibleOps()
    {
        QVERIFY(isTensorCoreEligibleOp("aten::addmm"));
        QVERIFY(isTensorCoreEligibleOp("aten::convolution_backward"));
        QVERIFY(isTensorCoreEligibleOp("aten::_scaled_dot_product_flash_attention"));
        QVERIFY(!isTensorCoreEligibleOp("aten::add"));
        QVERIFY(!isTensorCoreEligibleOp("aten::relu"));
    }

    // What the fusion finding reads (issue 30, class 6): the op first, the kernel's name
    // where no op is linked, and nothing guessed.
    void tellsWhatAKernelDoesForFusion_data()
    {
        QTest::addColumn<QString>("kernel");
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("role");
        auto row = [](const char* kernel, const char* op, const char* role) {
            QTest::newRow((std::string(kernel).substr(0, 40) + " / " + op).c_str())
                << kernel << op << role;
        };
        row("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>",
            "aten::add_", "fusible");
        row("void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl>",
            "aten::threshold_backward", "fusible");
        row("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1, true>",
            "aten::cudnn_batch_norm", "fusible");
        row("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>",
            "aten::_softmax", "fusible");
        row("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<copy>>",
            "aten::copy_", "copy");
        row("ampere_sgemm_128x64_nn", "aten::mm", "compute");
        row("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>",
            "aten::addmm", "compute");
        row("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4>>",
            "aten::_scaled_dot_product_flash_attention", "compute");
        row("triton_poi_fused_add_relu_0", "", "fused");
        row("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "",
            "communication");
        row("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
            "at::native::MeanOps>>",
            "", "fusible");
        row("void batch_norm_backward_kernel<c10::BFloat16, float>", "", "fusible");
        row("void at::native::indexSelectLargeIndex<float, long, unsigned int, 2, 2, -2, true>",
            "aten::index_select", "other");
        row("void cub::DeviceRadixSortOnesweepKernel<cub::DeviceRadixSortPolicy<long>>", "",
            "other");
        row("void convert_fp32_to_bf16_kernel(float const*, __nv_bfloat16*, int)", "", "other");
    }
    void tellsWhatAKernelDoesForFusion()
    {
        QFETCH(QString, kernel);
        QFETCH(QString, op);
        QFETCH(QString, role);
        QCOMPARE(QString(kernelRoleName(kernelRole(kernel.toStdString(), op.toStdString()))), role);
    }
};

QTEST_GUILESS_MAIN(TestClassification)
#include "test_classification.moc"
