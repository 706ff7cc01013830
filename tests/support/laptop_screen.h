#pragma once
// Runs a Qt Test object on the offscreen platform with one screen of a laptop's size: the
// platform's configuration file is written to the temporary folder first and removed after.
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QSize>
#include <QtTest>

namespace kinetoscope::test {

template <class Test>
int runOnLaptopScreen(int argc, char** argv, QSize screen)
{
    const QString config = QDir::temp().filePath(QStringLiteral("kinetoscope-screen-%1x%2-%3.json")
                                                     .arg(screen.width())
                                                     .arg(screen.height())
                                                     .arg(QCoreApplication::applicationPid()));
    {
        QFile file(config);
        if (!file.open(QIODevice::WriteOnly))
            return 1;
        file.write(QStringLiteral(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": %1,
                       "height": %2, "logicalDpi": 96, "logicalBpi": 96, "dpr": 1}]})")
                       .arg(screen.width())
                       .arg(screen.height())
                       .toUtf8());
    }
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    int status = 0;
    {
        QApplication app(argc, argv);
        Test test;
        status = QTest::qExec(&test, argc, argv);
    }
    QFile::remove(config);
    return status;
}

}  // namespace kinetoscope::test
