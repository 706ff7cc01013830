#pragma once
// "Is this picture blank?": the number of distinct colours on a 3-pixel grid.
#include <QImage>
#include <QSet>

namespace kinetoscope::test {

inline int distinctColours(const QImage& image)
{
    QSet<QRgb> colours;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            colours.insert(image.pixel(x, y));
    return int(colours.size());
}

}  // namespace kinetoscope::test
