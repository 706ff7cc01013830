// core/roofline/device_peaks: every device the real traces name maps to its datasheet entry;
// a device the table does not name is estimated from its SM count and architecture, and marked
// so; the table keeps its ordering invariants. The figures: docs/device-peaks.md.
#include "core/roofline/device_peaks.h"

#include <QtTest>
#include <set>
#include <string>

using namespace kinetoscope;
using roofline::DevicePeaks;
using roofline::peaksFor;

namespace {

trace::DeviceInfo device(const std::string& name, int64_t memBytes, int major, int minor, int sms,
                         int warpSize = -1)
{
    trace::DeviceInfo info;
    info.name = name;
    info.totalGlobalMemBytes = memBytes;
    info.computeMajor = major;
    info.computeMinor = minor;
    info.numSms = sms;
    info.warpSize = warpSize;
    return info;
}

// The entry of the table named `model`; nullptr when there is none.
const DevicePeaks* tableEntry(const std::string& model)
{
    for (const DevicePeaks& peaks : roofline::knownDevices()) {
        if (peaks.model == model)
            return &peaks;
    }
    return nullptr;
}

// |actual - expected| <= tolerance.
bool near(double actual, double expected, double tolerance)
{
    return actual >= expected - tolerance && actual <= expected + tolerance;
}

}  // namespace

class TestDevicePeaks : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    // deviceProperties entries as the traces under shared/traces write them.
    void realTraceDevicesMapToTheirEntry_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<qint64>("memBytes");
        QTest::addColumn<int>("major");
        QTest::addColumn<int>("minor");
        QTest::addColumn<int>("sms");
        QTest::addColumn<int>("warpSize");
        QTest::addColumn<QString>("model");
        QTest::addColumn<bool>("estimated");

        QTest::newRow("V100 SXM2 32GB") << "Tesla V100-SXM2-32GB" << qint64(34089730048) << 7 << 0
                                        << 80 << 32 << "V100 SXM2" << false;
        QTest::newRow("V100 SXM2 16GB") << "Tesla V100-SXM2-16GB" << qint64(16945512448) << 7 << 0
                                        << 80 << 32 << "V100 SXM2" << false;
        QTest::newRow("V100 DGXS") << "Tesla V100-DGXS-32GB" << qint64(34087305216) << 7 << 0 << 80
                                   << 32 << "V100 DGXS" << false;
        QTest::newRow("V100 DGXS, 2021 file without SMs")
            << "Tesla V100-DGXS-32GB" << qint64(34084028416) << -1 << -1 << -1 << -1 << "V100 DGXS"
            << false;
        QTest::newRow("A100 PG509-200") << "NVIDIA A100-PG509-200" << qint64(42297524224) << 8 << 0
                                        << 108 << 32 << "A100 SXM4 40GB" << false;
        QTest::newRow("PG509-210") << "NVIDIA PG509-210" << qint64(85198045184) << 8 << 0 << 108
                                   << 32 << "A100 SXM4 80GB" << false;
        QTest::newRow("A100 80GB PCIe") << "NVIDIA A100 80GB PCIe" << qint64(84990623744) << 8 << 0
                                        << 108 << 32 << "A100 PCIe 80GB" << false;
        QTest::newRow("H100, 132 SMs")
            << "NVIDIA H100" << qint64(102085492736) << 9 << 0 << 132 << 32 << "H100 SXM5" << false;
        QTest::newRow("B200") << "NVIDIA B200" << qint64(191503138816) << 10 << 0 << 148 << 32
                              << "B200" << false;
        QTest::newRow("B300 SXM6 AC") << "NVIDIA B300 SXM6 AC" << qint64(287416123392) << 10 << 3
                                      << 148 << 32 << "B300" << false;
        QTest::newRow("RTX 2080 Ti") << "NVIDIA GeForce RTX 2080 Ti" << qint64(11554586624) << 7
                                     << 5 << 68 << 32 << "RTX 2080 Ti" << false;
        QTest::newRow("Quadro GP100") << "Quadro GP100" << qint64(17069309952) << 6 << 0 << 56 << 32
                                      << "Quadro GP100" << false;
        QTest::newRow("MI300X") << "AMD Instinct MI300X" << qint64(206141652992) << 9 << 4 << 304
                                << 64 << "MI300X" << false;
        QTest::newRow("MI210") << "AMD Instinct MI210" << qint64(68702699520) << 9 << 0 << 104 << 64
                               << "MI210" << false;
        QTest::newRow("AMD Radeon Graphics, 104 CUs")
            << "AMD Radeon Graphics" << qint64(68702699520) << 9 << 0 << 104 << 64
            << "CDNA2 (104 CUs)" << true;
        QTest::newRow("no name, 304 CUs, 9.4")
            << "" << qint64(206141652992) << 9 << 4 << 304 << 64 << "CDNA3 (304 CUs)" << true;
    }

    void realTraceDevicesMapToTheirEntry()
    {
        QFETCH(QString, name);
        QFETCH(qint64, memBytes);
        QFETCH(int, major);
        QFETCH(int, minor);
        QFETCH(int, sms);
        QFETCH(int, warpSize);
        QFETCH(QString, model);
        QFETCH(bool, estimated);

        const auto peaks =
            peaksFor(device(name.toStdString(), memBytes, major, minor, sms, warpSize));
        QVERIFY(peaks.has_value());
        QCOMPARE(QString::fromStdString(peaks->model), model);
        QCOMPARE(peaks->estimated, estimated);
        QVERIFY(!peaks->source.empty());
        QVERIFY(peaks->fp32Tflops > 0);
        if (estimated) {
            QVERIFY(peaks->source.starts_with("estimated from "));
        } else {
            const DevicePeaks* entry = tableEntry(peaks->model);
            QVERIFY(entry != nullptr);
            QCOMPARE(peaks->source, entry->source);
        }
    }

    void datasheetFigures()
    {
        const auto h100 = peaksFor(device("NVIDIA H100", -1, 9, 0, 132));
        QVERIFY(h100.has_value());
        QCOMPARE(h100->fp16Tflops, 989.4);
        QCOMPARE(h100->tf32Tflops, 494.7);
        QCOMPARE(h100->fp8Tflops, 1978.9);
        QCOMPARE(h100->fp32Tflops, 67.0);
        QCOMPARE(h100->memoryGBps, 3350.0);

        const auto a100 = peaksFor(device("NVIDIA A100-SXM4-40GB", 42505273344, 8, 0, 108));
        QVERIFY(a100.has_value());
        QCOMPARE(a100->model, std::string("A100 SXM4 40GB"));
        QCOMPARE(a100->fp16Tflops, 312.0);
        QCOMPARE(a100->fp32Tflops, 19.5);
        QCOMPARE(a100->tf32Tflops, 156.0);
        QCOMPARE(a100->fp64Tflops, 19.5);  // fp64 on the tensor cores
        QCOMPARE(a100->fp8Tflops, 0.0);
        QCOMPARE(a100->memoryGBps, 1555.0);

        const auto v100 = peaksFor(device("Tesla V100-SXM2-16GB", 16945512448, 7, 0, 80));
        QVERIFY(v100.has_value());
        QCOMPARE(v100->fp16Tflops, 125.0);
        QCOMPARE(v100->fp32Tflops, 15.7);
        QCOMPARE(v100->fp64Tflops, 7.8);
        QCOMPARE(v100->tf32Tflops, 0.0);  // no TF32 before Ampere
        QCOMPARE(v100->memoryGBps, 900.0);

        const auto mi300x = peaksFor(device("AMD Instinct MI300X", 206141652992, 9, 4, 304, 64));
        QVERIFY(mi300x.has_value());
        QCOMPARE(mi300x->fp16Tflops, 1307.4);
        QCOMPARE(mi300x->fp8Tflops, 2614.9);
        QCOMPARE(mi300x->tf32Tflops, 653.7);
        QCOMPARE(mi300x->memoryGBps, 5300.0);

        // Pascal: no matrix units at all; fp16 on the SIMT units needs fp16 accumulate.
        const auto gp100 = peaksFor(device("Quadro GP100", 17069309952, 6, 0, 56));
        QVERIFY(gp100.has_value());
        QCOMPARE(gp100->fp32Tflops, 10.3);
        QCOMPARE(gp100->fp16Tflops, 0.0);
        QCOMPARE(gp100->tf32Tflops, 0.0);
        QCOMPARE(gp100->memoryGBps, 717.0);

        // GeForce: the fp32-accumulate rate, half the fp16-accumulate one.
        const auto rtx2080ti = peaksFor(device("NVIDIA GeForce RTX 2080 Ti", -1, 7, 5, 68));
        QVERIFY(rtx2080ti.has_value());
        QCOMPARE(rtx2080ti->fp16Tflops, 53.8);
        QCOMPARE(rtx2080ti->memoryGBps, 616.0);

        const auto b300 = peaksFor(device("NVIDIA B300 SXM6 AC", 287416123392, 10, 3, 148));
        QVERIFY(b300.has_value());
        QCOMPARE(b300->fp16Tflops, 2250.0);
        QVERIFY(b300->fp64Tflops < 2);  // Blackwell Ultra keeps almost no fp64
    }

    void oneNameSeveralParts_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<qint64>("memBytes");
        QTest::addColumn<int>("sms");
        QTest::addColumn<QString>("model");

        const qint64 gib = qint64(1) << 30;
        QTest::newRow("H100 with 114 SMs") << "NVIDIA H100" << 80 * gib << 114 << "H100 PCIe";
        QTest::newRow("H100 PCIe") << "NVIDIA H100 PCIe" << 80 * gib << 114 << "H100 PCIe";
        QTest::newRow("H100 80GB HBM3")
            << "NVIDIA H100 80GB HBM3" << 80 * gib << 132 << "H100 SXM5";
        QTest::newRow("H100 NVL") << "NVIDIA H100 NVL" << 94 * gib << 132 << "H100 NVL";
        QTest::newRow("lower case") << "nvidia h100 nvl" << qint64(-1) << -1 << "H100 NVL";
        QTest::newRow("H200") << "NVIDIA H200" << 141 * gib << 132 << "H200 SXM";
        QTest::newRow("H200 NVL") << "NVIDIA H200 NVL" << 141 * gib << 132 << "H200 NVL";
        QTest::newRow("GH200 480GB (96 GB GPU)")
            << "NVIDIA GH200 480GB" << 95 * gib << 132 << "GH200 96GB";
        QTest::newRow("GH200 144G HBM3e")
            << "NVIDIA GH200 144G HBM3e" << 143 * gib << 132 << "GH200 144GB";
        QTest::newRow("A100 SXM4 80GB")
            << "NVIDIA A100-SXM4-80GB" << 79 * gib << 108 << "A100 SXM4 80GB";
        QTest::newRow("A100 PCIe 40GB")
            << "NVIDIA A100-PCIE-40GB" << 39 * gib << 108 << "A100 PCIe 40GB";
        QTest::newRow("A100, memory tells") << "NVIDIA A100" << 79 * gib << 108 << "A100 SXM4 80GB";
        QTest::newRow("A10 is not A100") << "NVIDIA A10" << 22 * gib << 72 << "A10";
        QTest::newRow("V100S is not V100")
            << "Tesla V100S-PCIE-32GB" << 32 * gib << 80 << "V100S PCIe";
        QTest::newRow("V100 PCIe") << "Tesla V100-PCIE-16GB" << 16 * gib << 80 << "V100 PCIe";
        QTest::newRow("L40S is not L40") << "NVIDIA L40S" << 45 * gib << 142 << "L40S";
        QTest::newRow("L4") << "NVIDIA L4" << 22 * gib << 58 << "L4";
        QTest::newRow("T4") << "Tesla T4" << 15 * gib << 40 << "T4";
        QTest::newRow("RTX 4090") << "NVIDIA GeForce RTX 4090" << 24 * gib << 128 << "RTX 4090";
        QTest::newRow("RTX 3090") << "NVIDIA GeForce RTX 3090" << 24 * gib << 82 << "RTX 3090";
        QTest::newRow("MI300A") << "AMD Instinct MI300A" << 128 * gib << 228 << "MI300A";
        QTest::newRow("MI325X") << "AMD Instinct MI325X" << 256 * gib << 304 << "MI325X";
        QTest::newRow("MI250X/MI250 with 110 CUs")
            << "AMD Instinct MI250X / MI250" << 64 * gib << 110 << "MI250X (one GCD)";
        QTest::newRow("MI250X/MI250 with 104 CUs")
            << "AMD Instinct MI250X / MI250" << 64 * gib << 104 << "MI250 (one GCD)";
    }

    void oneNameSeveralParts()
    {
        QFETCH(QString, name);
        QFETCH(qint64, memBytes);
        QFETCH(int, sms);
        QFETCH(QString, model);
        const auto peaks = peaksFor(device(name.toStdString(), memBytes, -1, -1, sms));
        QVERIFY(peaks.has_value());
        QCOMPARE(QString::fromStdString(peaks->model), model);
        QVERIFY(!peaks->estimated);
    }

    // Every entry is reachable: its own model name, as a device name, maps back to it.
    void everyEntryIsReachable()
    {
        for (const DevicePeaks& entry : roofline::knownDevices()) {
            const auto peaks = peaksFor(device(entry.model, -1, -1, -1, -1));
            QVERIFY2(peaks.has_value(), entry.model.c_str());
            QCOMPARE(peaks->model, entry.model);
        }
    }

    void tableInvariants()
    {
        const auto table = roofline::knownDevices();
        QVERIFY(table.size() >= 30);
        std::set<std::string> models;
        for (const DevicePeaks& p : table) {
            const QByteArray what = QByteArray::fromStdString(p.model);
            QVERIFY2(models.insert(p.model).second, what + ": model listed twice");
            QVERIFY2(!p.estimated, what);
            QVERIFY2(!p.source.empty(), what + ": no source");
            QVERIFY2(p.fp64Tflops > 0, what);
            QVERIFY2(p.fp32Tflops > 0, what);
            QVERIFY2(p.tf32Tflops >= 0, what);
            QVERIFY2(p.fp16Tflops >= p.tf32Tflops, what + ": fp16 below tf32");
            QVERIFY2(p.fp8Tflops == 0 || p.fp8Tflops >= p.fp16Tflops, what + ": fp8 below fp16");
            QVERIFY2(p.memoryGBps > 0, what + ": no memory bandwidth");
            // Matrix units, where present, are at least as fast as the vector units.
            QVERIFY2(p.fp16Tflops == 0 || p.fp16Tflops >= p.fp32Tflops, what);
        }
    }

    void unknownNvidiaIsEstimated()
    {
        // A Hopper part the table does not name.
        const auto h800 = peaksFor(device("NVIDIA H800", 80LL << 30, 9, 0, 132, 32));
        QVERIFY(h800.has_value());
        QVERIFY(h800->estimated);
        QVERIFY2(near(h800->fp16Tflops, 989.4, 100), std::to_string(h800->fp16Tflops).c_str());
        QVERIFY(near(h800->fp8Tflops, 2 * h800->fp16Tflops, 1e-6));
        QVERIFY(near(h800->fp32Tflops, 67, 10));
        QCOMPARE(h800->memoryGBps, 3350.0);
        QVERIFY2(h800->source.starts_with(
                     "estimated from 132 SMs of compute capability 9.0 at ~1.83 GHz"),
                 h800->source.c_str());
        QVERIFY(h800->source.find("H100 SXM5") != std::string::npos);  // the SM count fits

        // A MIG slice: the name is an A100's, the SM count is not, so it is estimated.
        const auto mig = peaksFor(device("NVIDIA A100-SXM4-40GB MIG 1g.5gb", 5LL << 30, 8, 0, 14));
        QVERIFY(mig.has_value());
        QVERIFY(mig->estimated);
        QVERIFY(near(mig->fp16Tflops, 312.0 * 14 / 108, 2));

        // GeForce Ampere: fp32-accumulate matrix rates at half; no guess at its GDDR bandwidth.
        const auto rtx3070 = peaksFor(device("NVIDIA GeForce RTX 3070", 8LL << 30, 8, 6, 46));
        QVERIFY(rtx3070.has_value());
        QVERIFY(rtx3070->estimated);
        QVERIFY(near(rtx3070->fp16Tflops, 40.6, 3));
        QVERIFY(near(rtx3070->fp32Tflops, 20.3, 1.5));
        QCOMPARE(rtx3070->memoryGBps, 0.0);
        QVERIFY(rtx3070->source.find("GeForce") != std::string::npos);
        // The same silicon in a workstation card runs fp32-accumulate at the full rate.
        const auto a6000 = peaksFor(device("NVIDIA RTX A6000", 48LL << 30, 8, 6, 84));
        QVERIFY(a6000.has_value());
        QVERIFY(near(a6000->fp16Tflops, 154.8, 15));

        // GeForce excluded by the rules: a laptop part is estimated, not matched.
        const auto laptop = peaksFor(device("NVIDIA GeForce RTX 4090 Laptop GPU", -1, 8, 9, 76));
        QVERIFY(laptop.has_value());
        QVERIFY(laptop->estimated);
    }

    void unnamedAmdIsEstimatedFromItsCus()
    {
        const auto mi300x = peaksFor(device("", 206141652992, 9, 4, 304, 64));
        QVERIFY(mi300x.has_value());
        QVERIFY(mi300x->estimated);
        QVERIFY(near(mi300x->fp16Tflops, 1307.4, 1));
        QVERIFY(near(mi300x->fp8Tflops, 2614.9, 2));
        QVERIFY(near(mi300x->fp32Tflops, 163.4, 0.5));
        QCOMPARE(mi300x->memoryGBps, 5300.0);
        QVERIFY(mi300x->source.starts_with("estimated from 304 CUs of compute capability 9.4"));
        QVERIFY(mi300x->source.find("MI300X") != std::string::npos);

        // Without a warp size, the compute capability alone says AMD (NVIDIA has no 9.4).
        const auto noWarp = peaksFor(device("", -1, 9, 4, 304));
        QVERIFY(noWarp.has_value());
        QCOMPARE(noWarp->model, std::string("CDNA3 (304 CUs)"));

        const auto radeon = peaksFor(device("AMD Radeon Graphics", 68702699520, 9, 0, 104, 64));
        QVERIFY(radeon.has_value());
        QVERIFY(radeon->estimated);
        QVERIFY(near(radeon->fp16Tflops, 181.0, 0.5));
        QVERIFY(near(radeon->tf32Tflops, 45.3, 0.2));
        QVERIFY(near(radeon->fp32Tflops, 22.6, 0.2));
        QCOMPARE(radeon->fp8Tflops, 0.0);
        QCOMPARE(radeon->memoryGBps, 1638.4);
        QVERIFY(radeon->source.find("MI210") != std::string::npos);
        QVERIFY(radeon->source.find("MI250 (one GCD)") != std::string::npos);

        // 9.0 with 104 units fits both vendors: the 64-wide wavefront says AMD.
        const auto unnamedCdna2 = peaksFor(device("", -1, 9, 0, 104, 64));
        QVERIFY(unnamedCdna2.has_value());
        QCOMPARE(unnamedCdna2->model, std::string("CDNA2 (104 CUs)"));

        // An unnamed NVIDIA Hopper (warp 32, 9.0) is not taken for AMD.
        const auto hopper = peaksFor(device("", -1, 9, 0, 132, 32));
        QVERIFY(hopper.has_value());
        QCOMPARE(hopper->model, std::string("Hopper (132 SMs)"));
    }

    void nothingKnownIsNullopt()
    {
        QVERIFY(!peaksFor(device("", -1, -1, -1, -1)).has_value());
        QVERIFY(!peaksFor(device("", -1, 9, 4, 0)).has_value());
        QVERIFY(!peaksFor(device("Some Accelerator", -1, 8, 0, -1)).has_value());
        // SMs but no architecture: nothing to scale them by.
        QVERIFY(!peaksFor(device("Some Accelerator", -1, -1, -1, 100)).has_value());
        // An architecture without constants (Maxwell).
        QVERIFY(!peaksFor(device("NVIDIA Tesla M40", -1, 5, 2, 24)).has_value());
    }
};

QTEST_GUILESS_MAIN(TestDevicePeaks)
#include "test_device_peaks.moc"
