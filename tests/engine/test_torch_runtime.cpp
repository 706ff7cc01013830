// The LibTorch chain works: headers, libraries and runtime of the pinned torch wheel.
#include "core/engine/torch_runtime.h"

#include <QtTest>

using namespace kinetoscope::engine;

class TestTorchRuntime : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void createsATensorAndComputesWithIt()
    {
        QCOMPARE(sumOfRangeTensor(10), int64_t(45));
        QCOMPARE(sumOfRangeTensor(100000), int64_t(100000) * 99999 / 2);
    }

    void reportsThePinnedVersion()
    {
        const TorchRuntime runtime = probeTorchRuntime();
        QVERIFY2(runtime.torchVersion.starts_with("2.11.0"), runtime.torchVersion.c_str());
        QVERIFY(runtime.cudaDeviceCount >= 0);
        QCOMPARE(runtime.cudaAvailable, runtime.cudaDeviceCount > 0);
    }
};

QTEST_GUILESS_MAIN(TestTorchRuntime)
#include "test_torch_runtime.moc"
