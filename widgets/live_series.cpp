#include "widgets/live_series.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <qcustomplot.h>
#include <utility>

namespace kinetoscope::widgets {

EnvelopeCurve::EnvelopeCurve(QCPGraph* curve, int mostPoints)
    : m_curve(curve), m_mostPoints(std::max(4, mostPoints))
{
}

void EnvelopeCurve::add(double key, double value)
{
    QCPGraphDataContainer& data = *m_curve->data();
    if (m_inGroup == m_stride) {  // the last group is full: this sample starts the next
        m_inGroup = 0;
        if (data.size() >= m_mostPoints)
            halve();
    }
    if (m_inGroup > 0)  // the group's two points so far go: they are drawn again below
        data.removeAfter(std::nextafter(std::min(m_lowKey, m_highKey), -INFINITY));
    if (m_inGroup == 0 || value < m_low) {
        m_low = value;
        m_lowKey = key;
    }
    if (m_inGroup == 0 || value > m_high) {
        m_high = value;
        m_highKey = key;
    }
    ++m_inGroup;
    // Two points a group, in time order (the same sample twice while it is alone).
    const bool lowFirst = m_lowKey <= m_highKey;
    data.add(QCPGraphData(lowFirst ? m_lowKey : m_highKey, lowFirst ? m_low : m_high));
    data.add(QCPGraphData(lowFirst ? m_highKey : m_lowKey, lowFirst ? m_high : m_low));
}

void EnvelopeCurve::halve()
{
    // Every group drawn is full and two points: each two groups (four points) become one.
    const QSharedPointer<QCPGraphDataContainer> data = m_curve->data();
    QVector<QCPGraphData> kept;
    kept.reserve(data->size() / 2 + 2);
    for (auto group = data->constBegin(); group != data->constEnd();) {
        const auto end = data->constEnd() - group > 4 ? group + 4 : data->constEnd();
        const auto [lowest, highest] =
            std::minmax_element(group, end, [](const QCPGraphData& a, const QCPGraphData& b) {
                return a.value < b.value;
            });
        kept.push_back(*std::min(lowest, highest));
        kept.push_back(*std::max(lowest, highest));
        group = end;
    }
    data->set(kept, true);
    m_stride *= 2;
}

SlowestStepBars::SlowestStepBars(std::vector<QCPBars*> stacked, int mostBars)
    : m_stacked(std::move(stacked)), m_mostBars(std::max(2, mostBars)),
      m_barWidth(m_stacked.empty() ? 0.75 : m_stacked.front()->width())
{
}

int SlowestStepBars::bars() const
{
    return m_stacked.empty() ? 0 : m_stacked.front()->data()->size();
}

void SlowestStepBars::clear()
{
    for (QCPBars* phase : m_stacked) {
        phase->data()->clear();
        phase->setWidth(m_barWidth);
    }
    m_stride = 1;
    m_inGroup = 0;
    m_slowestTotal = -1;
}

void SlowestStepBars::add(double step, const std::vector<double>& phases)
{
    if (m_inGroup == m_stride) {  // the last group is full: this step starts the next
        m_inGroup = 0;
        m_slowestTotal = -1;
        if (bars() >= m_mostBars)
            halve();
    }
    if (m_inGroup == 0)
        m_groupFirst = step;
    ++m_inGroup;
    const double total = std::accumulate(phases.begin(), phases.end(), 0.0);
    if (total > m_slowestTotal) {
        m_slowestTotal = total;
        m_slowest = phases;
    }
    drawGroup();
}

void SlowestStepBars::drawGroup()
{
    // At the middle of the steps it has so far (once full, of the group's: the bars tile the
    // axis of steps), so that its newest step is on screen as it comes.
    const double key = m_groupFirst + double(m_inGroup - 1) / 2;
    for (size_t p = 0; p < m_stacked.size(); ++p) {
        QCPBarsDataContainer& data = *m_stacked[p]->data();
        if (m_inGroup > 1 && !data.isEmpty())
            data.remove(m_drawnKey);
        data.add(QCPBarsData(key, p < m_slowest.size() ? m_slowest[p] : 0.0));
    }
    m_drawnKey = key;
}

void SlowestStepBars::halve()
{
    // Every bar drawn is a full group of m_stride steps: pairs of them become one.
    const int count = bars();
    std::vector<QVector<QCPBarsData>> kept(m_stacked.size());
    double lastFirst = 0;
    std::vector<double> lastPhases;
    for (int pair = 0; pair < count; pair += 2) {
        auto phasesOf = [&](int bar) {
            std::vector<double> phases;
            for (QCPBars* phase : m_stacked)
                phases.push_back((phase->data()->constBegin() + bar)->value);
            return phases;
        };
        std::vector<double> slower = phasesOf(pair);
        if (pair + 1 < count) {
            std::vector<double> other = phasesOf(pair + 1);
            if (std::accumulate(other.begin(), other.end(), 0.0) >
                std::accumulate(slower.begin(), slower.end(), 0.0))
                slower = std::move(other);
        }
        const double first =
            (m_stacked.front()->data()->constBegin() + pair)->key - double(m_stride - 1) / 2;
        for (size_t p = 0; p < m_stacked.size(); ++p)
            kept[p].push_back(QCPBarsData(first + double(2 * m_stride - 1) / 2, slower[p]));
        lastFirst = first;
        lastPhases = std::move(slower);
    }
    m_stride *= 2;
    for (size_t p = 0; p < m_stacked.size(); ++p) {
        m_stacked[p]->data()->set(kept[p], true);
        m_stacked[p]->setWidth(m_barWidth * m_stride);
    }
    if (count % 2 == 1) {  // the last bar holds half a group: the one being filled now
        m_groupFirst = lastFirst;
        m_inGroup = m_stride / 2;
        m_drawnKey = lastFirst + double(2 * (m_stride / 2) - 1) / 2;
        m_slowest = lastPhases;
        m_slowestTotal = std::accumulate(lastPhases.begin(), lastPhases.end(), 0.0);
    }
}

}  // namespace kinetoscope::widgets
