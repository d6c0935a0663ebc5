<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About rocmate</source>
        <translation>关于 rocmate</translation>
    </message>
    <message>
        <source>Sets up PyTorch on your AMD graphics card and measures how fast it runs.</source>
        <translation>在你的 AMD 显卡上配置 PyTorch，并测量它跑得多快。</translation>
    </message>
    <message>
        <source>Copyright © the rocmate authors. Free software under the %1 licence: use, change and share it.</source>
        <translation>版权所有 © rocmate 作者。以 %1 许可证发布的自由软件：可以使用、修改和分享。</translation>
    </message>
    <message>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <source>Third-party notices</source>
        <translation>第三方声明</translation>
    </message>
    <message>
        <source>The licence file is missing from this copy. rocmate is under the %1 licence.</source>
        <translation>这份副本缺少许可证文件。rocmate 使用 %1 许可证。</translation>
    </message>
    <message>
        <source>This copy of rocmate carries other software (Python, Qt and PySide6, numpy, pyqtgraph and the libraries they need), each under its own licence. The list and the full texts, also in the image as %1:</source>
        <translation>这份 rocmate 附带了其他软件（Python、Qt 和 PySide6、numpy、pyqtgraph 以及它们所需的库），各自使用自己的许可证。清单和完整文本如下，也保存在 AppImage 里的 %1：</translation>
    </message>
    <message>
        <source>rocmate runs from its sources here: pip installed the libraries it uses, each with its own licence files (pip show -f NAME lists them). The AppImage carries the notices and licence texts of everything it bundles.</source>
        <translation>这里的 rocmate 从源代码运行：它用到的库由 pip 安装，各自带有自己的许可证文件（pip show -f 包名 可列出）。AppImage 则附带了它所打包的全部软件的声明和许可证文本。</translation>
    </message>
</context>
<context>
    <name>AdvancedSettings</name>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU数量</translation>
    </message>
    <message>
        <source>Size</source>
        <translation>尺寸</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Batch size</source>
        <translation>Batch size</translation>
    </message>
    <message>
        <source>Measure for</source>
        <translation>测量时长</translation>
    </message>
    <message>
        <source>Or exactly N steps</source>
        <translation>或者正好测N步</translation>
    </message>
    <message>
        <source>Options</source>
        <translation>选项</translation>
    </message>
    <message>
        <source>SD 1.5 weights</source>
        <translation>SD 1.5权重</translation>
    </message>
    <message>
        <source>The GPU (cuda:0)</source>
        <translation>GPU（cuda:0）</translation>
    </message>
    <message>
        <source>The CPU (slow: a check that the suites run)</source>
        <translation>CPU（很慢：只检查测试任务能否运行）</translation>
    </message>
    <message>
        <source>One GPU</source>
        <translation>一张GPU</translation>
    </message>
    <message>
        <source>Processes</source>
        <translation>进程数</translation>
    </message>
    <message>
        <source>One process</source>
        <translation>一个进程</translation>
    </message>
    <message>
        <source>%1 GPUs, data-parallel (ResNet-50 and LLM; one GPU first, for the scaling)</source>
        <translation>%1张GPU，数据并行（ResNet-50和LLM；先跑一张GPU，用来计算扩展效率）</translation>
    </message>
    <message>
        <source>%1 processes on the CPU, data-parallel (a check that the mode runs)</source>
        <translation>CPU上%1个进程，数据并行（只检查该模式能否运行）</translation>
    </message>
    <message>
        <source>The GPUs (cuda:0 to cuda:%1)</source>
        <translation>多张GPU（cuda:0到cuda:%1）</translation>
    </message>
    <message>
        <source>Automatic (the suite&apos;s default)</source>
        <translation>自动（测试任务的默认值）</translation>
    </message>
    <message>
        <source>Tiny shapes: a smoke run in seconds, not a measurement</source>
        <translation>极小尺寸：几秒钟的试跑，不是正式测量</translation>
    </message>
    <message>
        <source>Automatic (sized to the card)</source>
        <translation>自动（按显卡确定）</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Automatic (by time)</source>
        <translation>自动（按时间）</translation>
    </message>
    <message>
        <source>channels_last (ResNet-50)</source>
        <translation>channels_last (ResNet-50)</translation>
    </message>
    <message>
        <source>torch.compile (slow to start)</source>
        <translation>torch.compile（启动慢）</translation>
    </message>
    <message>
        <source>Random weights (no download)</source>
        <translation>随机权重（无需下载）</translation>
    </message>
    <message>
        <source>Choose…</source>
        <translation>选择…</translation>
    </message>
    <message>
        <source>Safetensors (*.safetensors);;All files (*)</source>
        <translation>Safetensors (*.safetensors);;所有文件 (*)</translation>
    </message>
</context>
<context>
    <name>App</name>
    <message>
        <source>rocmate hit a problem</source>
        <translation>rocmate遇到了问题</translation>
    </message>
    <message>
        <source>Your work so far is kept. Copy the details into a bug report.</source>
        <translation>你到目前为止的工作都已保留。请把详细信息复制到bug报告里。</translation>
    </message>
    <message>
        <source>Copy details</source>
        <translation>复制详细信息</translation>
    </message>
    <message>
        <source>it is open already: its window was brought to the front</source>
        <translation>它已经打开了：已把它的窗口移到最前面</translation>
    </message>
</context>
<context>
    <name>BenchmarkPage</name>
    <message>
        <source>warming up</source>
        <translation>正在预热</translation>
    </message>
    <message>
        <source>measuring</source>
        <translation>正在测量</translation>
    </message>
    <message>
        <source>about %1 s</source>
        <translation>约%1 s</translation>
    </message>
    <message>
        <source>about %1 min</source>
        <translation>约%1分钟</translation>
    </message>
    <message>
        <source>Benchmark the card</source>
        <translation>测试显卡性能</translation>
    </message>
    <message>
        <source>Pick what to measure and press Start. The graphs follow the run live; the results are kept in the history.</source>
        <translation>选择要测试的项目，然后按“开始”。图表会实时显示运行情况；结果会保存在历史记录中。</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Cancel the run</source>
        <translation>取消运行(&amp;C)</translation>
    </message>
    <message>
        <source>Show the benchmark cards again</source>
        <translation>重新显示性能测试项目</translation>
    </message>
    <message>
        <source>The graphs appear here when a run starts: throughput and step time, and the card&apos;s power, temperature, clocks, memory and load, live.</source>
        <translation>开始运行后，这里会实时显示图表：吞吐量和单步耗时，以及显卡的功耗、温度、频率、显存和利用率。</translation>
    </message>
    <message>
        <source>A recorded machine runs nothing: the benchmark runs on this computer.</source>
        <translation>记录下来的机器不会运行任何东西：性能测试会在这台电脑上运行。</translation>
    </message>
    <message>
        <source>A&amp;dvanced settings</source>
        <translation>高级设置(&amp;D)</translation>
    </message>
    <message>
        <source>Choose a&amp;gain</source>
        <translation>重新选择(&amp;G)</translation>
    </message>
    <message>
        <source>Gra&amp;phs of:</source>
        <translation>图表(&amp;P)：</translation>
    </message>
    <message>
        <source>The graphs appear here when a run starts: throughput and step time, live, measured on the CPU.</source>
        <translation>开始运行后，这里会实时显示图表：在CPU上测得的吞吐量和单步耗时。</translation>
    </message>
    <message>
        <source>Before a long run: %1</source>
        <translation>长时间运行之前请注意：%1</translation>
    </message>
    <message>
        <source>starting the worker</source>
        <translation>正在启动工作进程</translation>
    </message>
    <message>
        <source>stopping the worker</source>
        <translation>正在停止工作进程</translation>
    </message>
    <message>
        <source>setting up</source>
        <translation>正在准备</translation>
    </message>
    <message>
        <source>the worker started on %1</source>
        <translation>工作进程已在%1上启动</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1（%2）</translation>
    </message>
    <message>
        <source>A recorded run: %1</source>
        <translation>记录的运行：%1</translation>
    </message>
    <message>
        <source>%1 left</source>
        <translation>剩余%1</translation>
    </message>
    <message>
        <source>taking longer than the estimate</source>
        <translation>比预计的时间长</translation>
    </message>
    <message>
        <source>%1 (%2 of %3): %4 — %5 elapsed, %6</source>
        <translation>%1（%2/%3）：%4 — 已用%5，%6</translation>
    </message>
    <message>
        <source>Done in %1 s. Next shows the results.</source>
        <translation>完成，用时%1 s。按“下一步”查看结果。</translation>
    </message>
    <message>
        <source>Cancelled. The steps it measured are kept in the history.</source>
        <translation>已取消。已测得的步会保存在历史记录中。</translation>
    </message>
    <message>
        <source>The run failed.</source>
        <translation>运行失败。</translation>
    </message>
    <message>
        <source>The run did not start.</source>
        <translation>运行没有启动。</translation>
    </message>
</context>
<context>
    <name>CompareView</name>
    <message>
        <source>Copy as &amp;Markdown</source>
        <translation>复制为Markdown(&amp;M)</translation>
    </message>
    <message>
        <source>S&amp;wap A and B</source>
        <translation>交换A和B(&amp;W)</translation>
    </message>
    <message>
        <source>A (the baseline): %1</source>
        <translation>A（基准）：%1</translation>
    </message>
    <message>
        <source>B: %1</source>
        <translation>B：%1</translation>
    </message>
    <message>
        <source>Each figure of B against A: a ratio above 1× means B measured more. “B is” says whether that is better or worse for the figure.</source>
        <translation>B的每项指标与A对比：比值大于1×表示B测得的数值更大。“B相比A”一栏说明这对该指标来说是更好还是更差。</translation>
    </message>
    <message>
        <source>Software that differs</source>
        <translation>软件不同</translation>
    </message>
    <message>
        <source>The same software.</source>
        <translation>软件相同。</translation>
    </message>
    <message>
        <source>Machine that differs</source>
        <translation>机器不同</translation>
    </message>
    <message>
        <source>The same machine.</source>
        <translation>机器相同。</translation>
    </message>
    <message>
        <source>Runs with no partner: %1</source>
        <translation>没有配对的运行：%1</translation>
    </message>
    <message>
        <source>A on %1
B on %2</source>
        <translation>A在%1上
B在%2上</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>注意：%1</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>A</source>
        <translation>A</translation>
    </message>
    <message>
        <source>B</source>
        <translation>B</translation>
    </message>
    <message>
        <source>B ÷ A</source>
        <translation>B ÷ A</translation>
    </message>
    <message>
        <source>B is</source>
        <translation>B相比A</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>B differs from A by less than the steps varied (up to %1): run both again before reading a difference into it.</source>
        <translation>B与A的差别小于各步的波动（最多%1）：先把两次都再跑一遍，再下结论。</translation>
    </message>
    <message>
        <source>Settings that differ</source>
        <translation>设置不同</translation>
    </message>
    <message>
        <source>The same settings.</source>
        <translation>设置相同。</translation>
    </message>
    <message>
        <source>What</source>
        <translation>项目</translation>
    </message>
    <message>
        <source>Copied the comparison as Markdown: paste it into a forum post or an issue.</source>
        <translation>已把对比复制为Markdown：可以粘贴到论坛帖子或issue里。</translation>
    </message>
    <message>
        <source>Not copied: %1</source>
        <translation>未能复制：%1</translation>
    </message>
</context>
<context>
    <name>Findings</name>
    <message>
        <source>Problem</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>In this app: Repair… in the list of the apps&apos; environments above.</source>
        <translation>在本应用中：点上方应用环境列表里的“修复…”。</translation>
    </message>
    <message>
        <source>In this app: Roll back in that app&apos;s repair window.</source>
        <translation>在本应用中：在该应用的修复窗口里点“回退”。</translation>
    </message>
    <message>
        <source>In this app: Next leads to the set-up plan, which does this.</source>
        <translation>在本应用中：点“下一步”进入安装计划，它会完成这一步。</translation>
    </message>
    <message>
        <source>In this app: Re-check.</source>
        <translation>在本应用中：点“重新检查”。</translation>
    </message>
    <message>
        <source>In this app: the Benchmark page.</source>
        <translation>在本应用中：“基准测试”页面。</translation>
    </message>
    <message>
        <source>Copied</source>
        <translation>已复制</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>Caused by: %1</source>
        <translation>原因：%1</translation>
    </message>
    <message>
        <source>How to fix it:</source>
        <translation>解决办法：</translation>
    </message>
    <message>
        <source>Copy the command</source>
        <translation>复制命令</translation>
    </message>
    <message>
        <source>Copy the commands</source>
        <translation>复制这些命令</translation>
    </message>
</context>
<context>
    <name>HistoryModel</name>
    <message>
        <source>imported</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>这台电脑</translation>
    </message>
    <message>
        <source>device unknown</source>
        <translation>未知设备</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Suite</source>
        <translation>测试任务</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Result (median)</source>
        <translation>结果（中位数）</translation>
    </message>
    <message>
        <source>When the benchmark ran, by this computer&apos;s clock</source>
        <translation>基准测试运行的时间（按本机时钟）</translation>
    </message>
    <message>
        <source>From</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>The run&apos;s number in the history</source>
        <translation>这次运行在历史记录中的编号</translation>
    </message>
    <message>
        <source>How the run ended (the reason, for a failed one, in its tooltip)</source>
        <translation>运行是怎么结束的（失败的运行，原因在悬停提示里）</translation>
    </message>
    <message>
        <source>The headline figure: the median of the measured steps</source>
        <translation>主要指标：实测步的中位数</translation>
    </message>
    <message>
        <source>This computer, or the report file it was imported from</source>
        <translation>这台电脑，或者导入它的报告文件</translation>
    </message>
    <message>
        <source>Imported from %1</source>
        <translation>导入自 %1</translation>
    </message>
</context>
<context>
    <name>HistoryWindow</name>
    <message>
        <source>rocmate — history of runs</source>
        <translation>rocmate — 运行历史记录</translation>
    </message>
    <message>
        <source>card, suite, figure, file name…</source>
        <translation>显卡、测试任务、指标、文件名……</translation>
    </message>
    <message>
        <source>&amp;Filter:</source>
        <translation>筛选(&amp;F)：</translation>
    </message>
    <message>
        <source>Suite</source>
        <translation>测试任务</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>&amp;Import a report…</source>
        <translation>导入报告(&amp;I)…</translation>
    </message>
    <message>
        <source>A report file someone shared, to compare with your runs</source>
        <translation>别人分享的报告文件，用来和你的运行对比</translation>
    </message>
    <message>
        <source>&amp;Reload</source>
        <translation>重新加载(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>打开(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Compare the two</source>
        <translation>对比这两次(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <source>Reading the history…</source>
        <translation>正在读取历史记录……</translation>
    </message>
    <message>
        <source>The newest %1 of %2 runs.</source>
        <translation>共%2次运行，显示最新的%1次。</translation>
    </message>
    <message>
        <source>One run in the history.</source>
        <translation>历史记录中有1次运行。</translation>
    </message>
    <message numerus="yes">
        <source>%n runs in the history.</source>
        <translation>
            <numerusform>历史记录中有%n次运行。</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n run(s) that stopped before their end (rocmate closed or crashed) were added as interrupted.</source>
        <translation>
            <numerusform>有%n次运行在结束前停止了（rocmate被关闭或崩溃），已作为“已中断”加入历史记录。</numerusform>
        </translation>
    </message>
    <message>
        <source>All suites</source>
        <translation>全部测试任务</translation>
    </message>
    <message>
        <source>Any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <source>No runs in the history yet.

Run a benchmark on the Benchmark page (or rocmate bench in a terminal): each run is kept here. To compare with someone else&apos;s card, press Import a report… and pick the report file they shared.</source>
        <translation>历史记录中还没有运行。

在“测试显卡性能”页面运行一次性能测试（或在终端里运行 rocmate bench）：每次运行都会保存在这里。要和别人的显卡对比，请按“导入报告…”，然后选择对方分享的报告文件。</translation>
    </message>
    <message>
        <source>To compare two runs, pick them (click one, Ctrl+click the other) and press Compare the two. The older one is the baseline A.</source>
        <translation>要对比两次运行，先选中它们（单击一次运行，再按住Ctrl单击另一次），然后按“对比这两次”。较早的那次是基准A。</translation>
    </message>
    <message>
        <source>Pick a run and press Open (or double-click it) to see it; pick two (Ctrl+click) and press Compare the two.</source>
        <translation>选中一次运行，按“打开”（或双击它）即可查看；选中两次（按住Ctrl单击），然后按“对比这两次”即可对比。</translation>
    </message>
    <message>
        <source>Compare takes two runs.</source>
        <translation>对比需要选中两次运行。</translation>
    </message>
    <message>
        <source>Opening run #%1…</source>
        <translation>正在打开运行#%1……</translation>
    </message>
    <message>
        <source>Comparing run #%1 with run #%2…</source>
        <translation>正在对比运行#%1和运行#%2……</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete run %1 from the history? This cannot be undone.</source>
        <translation>要从历史记录中删除运行%1吗？删除后无法恢复。</translation>
    </message>
    <message numerus="yes">
        <source>Delete %n runs from the history (%1)? This cannot be undone.</source>
        <translation>
            <numerusform>要从历史记录中删除这%n次运行（%1）吗？删除后无法恢复。</numerusform>
        </translation>
    </message>
    <message>
        <source>&amp;Delete</source>
        <translation>删除(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Keep</source>
        <comment>the runs</comment>
        <translation>保留(&amp;K)</translation>
    </message>
    <message>
        <source>Import a report</source>
        <translation>导入报告</translation>
    </message>
    <message>
        <source>rocmate reports (*.json);;All files (*)</source>
        <translation>rocmate报告 (*.json);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Importing %1…</source>
        <translation>正在导入 %1……</translation>
    </message>
    <message>
        <source>Deleted %1.</source>
        <translation>已删除%1。</translation>
    </message>
    <message>
        <source>Imported %1 as %2 (%3).</source>
        <translation>已导入 %1，编号为%2（%3）。</translation>
    </message>
    <message>
        <source>%1 is in the history already, as %2 (%3).</source>
        <translation>%1 已在历史记录中，编号为%2（%3）。</translation>
    </message>
    <message>
        <source>Something went wrong.</source>
        <translation>出了点问题。</translation>
    </message>
    <message>
        <source>Problem: %1</source>
        <translation>问题：%1</translation>
    </message>
</context>
<context>
    <name>LivePlots</name>
    <message>
        <source>used</source>
        <translation>已用</translation>
    </message>
    <message>
        <source>total</source>
        <translation>总量</translation>
    </message>
    <message>
        <source>all GPUs</source>
        <translation>全部GPU</translation>
    </message>
    <message>
        <source>Measured on the CPU: no card&apos;s power, temperature, clocks or load to show.</source>
        <translation>在CPU上测量：没有显卡的功耗、温度、频率或负载可显示。</translation>
    </message>
    <message>
        <source>No telemetry was recorded.</source>
        <translation>没有记录到监控数据。</translation>
    </message>
    <message>
        <source>Telemetry (power, temperature, clocks, VRAM, GPU busy) is not available on this card.</source>
        <translation>这张显卡不提供监控数据（功耗、温度、频率、显存、GPU利用率）。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>、</translation>
    </message>
    <message>
        <source>Not available on this card: %1.</source>
        <translation>这张显卡不提供：%1。</translation>
    </message>
    <message>
        <source>Telemetry stopped at %1 s.</source>
        <translation>监控数据在%1 s时中断。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences</comment>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Step time</source>
        <translation>单步耗时</translation>
    </message>
    <message>
        <source>Board power</source>
        <translation>板卡功耗</translation>
    </message>
    <message>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <source>Clocks</source>
        <translation>频率</translation>
    </message>
    <message>
        <source>VRAM</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>GPU busy</source>
        <translation>GPU利用率</translation>
    </message>
    <message>
        <source>s</source>
        <translation>s</translation>
    </message>
    <message>
        <source>W</source>
        <translation>W</translation>
    </message>
    <message>
        <source>°C</source>
        <translation>°C</translation>
    </message>
    <message>
        <source>MHz</source>
        <translation>MHz</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>GiB</translation>
    </message>
    <message>
        <source>%</source>
        <translation>%</translation>
    </message>
    <message>
        <source>Shaded: warm-up (not in the figures). ★ the first step (cold start). Dashed: the median of the measured steps.</source>
        <translation>阴影：预热（不计入指标）。★：第一步（冷启动）。虚线：实测步的中位数。</translation>
    </message>
    <message>
        <source>seconds since the run started</source>
        <translation>运行开始后的秒数</translation>
    </message>
    <message>
        <source>cold start %1 s</source>
        <translation>冷启动%1 s</translation>
    </message>
    <message>
        <source>median %1 %2</source>
        <translation>中位数%1 %2</translation>
    </message>
    <message>
        <source>prefill</source>
        <comment>llm-infer&apos;s prompt pass</comment>
        <translation>提示词处理</translation>
    </message>
    <message>
        <source>decode</source>
        <comment>llm-infer&apos;s token generation</comment>
        <translation>生成</translation>
    </message>
    <message>
        <source>Nothing to show: the run was cancelled before its first step.</source>
        <translation>没有可显示的内容：这次运行在第一步之前就被取消了。</translation>
    </message>
    <message>
        <source>Nothing to show: the run failed before its first step.</source>
        <translation>没有可显示的内容：这次运行在第一步之前就失败了。</translation>
    </message>
    <message>
        <source>all processes</source>
        <translation>所有进程</translation>
    </message>
    <message>
        <source>process %1</source>
        <translation>进程%1</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
</context>
<context>
    <name>MemoryDialog</name>
    <message>
        <source>GPU memory</source>
        <translation>GPU内存</translation>
    </message>
    <message>
        <source>An integrated GPU has no memory of its own: it uses system memory, up to a limit the kernel sets (GTT). This shows that limit, what to give the GPU for a goal, and the setting that gives it. Apply… writes that setting (it asks you first, then for the administrator&apos;s password) and Undo… takes it back; either takes effect after a restart.</source>
        <translation>集成GPU没有自己的显存：它使用系统内存，上限由内核设定（GTT）。这里显示这个上限、为某个目标应分给GPU多少内存，以及实现它的设置。“应用…”会写入这个设置（先征求你的同意，再要求输入管理员密码），“撤销…”会把它改回去；两者都在重启后生效。</translation>
    </message>
    <message>
        <source>&amp;Size for:</source>
        <translation>按此目标计算(&amp;S)：</translation>
    </message>
    <message>
        <source>The most the machine can safely give</source>
        <translation>这台机器能安全分出的最大值</translation>
    </message>
    <message>
        <source>A language model of (GB):</source>
        <translation>一个这么大的语言模型（GB）：</translation>
    </message>
    <message>
        <source> GB</source>
        <translation> GB</translation>
    </message>
    <message>
        <source>What Apply… changes</source>
        <translation>“应用…”会更改的内容</translation>
    </message>
    <message>
        <source>A replayed machine (%1): the change is only shown, and nothing on this computer is changed. On that machine itself:  rocmate memory apply</source>
        <translation>这是回放的机器（%1）：这里只显示更改，不会更改这台电脑上的任何东西。请在那台机器上运行：  rocmate memory apply</translation>
    </message>
    <message>
        <source>&amp;Apply…</source>
        <translation>应用(&amp;A)…</translation>
    </message>
    <message>
        <source>&amp;Undo…</source>
        <translation>撤销(&amp;U)…</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>This machine has no integrated AMD GPU whose memory rocmate could read.</source>
        <translation>这台机器没有rocmate能读取其内存信息的AMD集成显卡。</translation>
    </message>
    <message>
        <source>Goal: %1</source>
        <translation>目标：%1</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>来源：%1</translation>
    </message>
    <message>
        <source>not read yet</source>
        <translation>尚未读取</translation>
    </message>
    <message>
        <source>there is no such file now: Undo removes it again</source>
        <translation>目前没有这个文件：撤销时会再把它删除</translation>
    </message>
    <message>
        <source>what the file held before rocmate first changed it:
%1</source>
        <translation>rocmate第一次更改之前文件的内容：
%1</translation>
    </message>
    <message>
        <source>what the file holds now:
%1</source>
        <translation>文件现在的内容：
%1</translation>
    </message>
    <message>
        <source>Nothing to change for this goal.</source>
        <translation>这个目标不需要更改任何东西。</translation>
    </message>
    <message>
        <source>Nothing can be done: %1</source>
        <translation>无法进行更改：%1</translation>
    </message>
    <message>
        <source>Writes %1 (as root):</source>
        <translation>以root身份写入%1：</translation>
    </message>
    <message>
        <source>Kept for Undo: %1</source>
        <translation>为撤销保留：%1</translation>
    </message>
    <message>
        <source>A replayed machine (%1): nothing on this computer is changed.</source>
        <translation>这是回放的机器（%1）：不会更改这台电脑上的任何东西。</translation>
    </message>
    <message>
        <source>A replayed machine&apos;s change is only shown</source>
        <translation>回放机器的更改只会显示</translation>
    </message>
    <message>
        <source>rocmate writes %1 as root (you are asked for the administrator&apos;s password), with rocmate&apos;s comment and this line:

%2

The GPU may then map up to %3 GiB of system memory, from the next restart.

Kept for Undo: %4</source>
        <translation>rocmate将以root身份写入%1（会要求输入管理员密码），内容为rocmate的注释和这一行：

%2

下次重启后，GPU最多可以映射%3 GiB系统内存。

为撤销保留：%4</translation>
    </message>
    <message>
        <source>Change the GPU&apos;s memory limit?</source>
        <translation>更改GPU的内存上限？</translation>
    </message>
    <message>
        <source>Nothing was changed.</source>
        <translation>没有更改任何东西。</translation>
    </message>
    <message>
        <source>it gets back what it held before rocmate first changed it:
%1</source>
        <translation>它会恢复rocmate第一次更改之前的内容：
%1</translation>
    </message>
    <message>
        <source>it is removed (there was none before rocmate changed it).</source>
        <translation>它会被删除（rocmate更改之前并没有这个文件）。</translation>
    </message>
    <message>
        <source>rocmate puts %1 back as root (you are asked for the administrator&apos;s password): %2

This takes effect after the next restart.</source>
        <translation>rocmate将以root身份恢复%1（会要求输入管理员密码）：%2

这在下次重启后生效。</translation>
    </message>
    <message>
        <source>Undo rocmate&apos;s GPU memory change?</source>
        <translation>撤销rocmate对GPU内存的更改？</translation>
    </message>
    <message>
        <source>%1 On that machine itself:  rocmate memory apply</source>
        <translation>%1请在那台机器上运行：  rocmate memory apply</translation>
    </message>
    <message>
        <source>Taking the change back…</source>
        <translation>正在撤销更改…</translation>
    </message>
    <message>
        <source>Changing the limit…</source>
        <translation>正在更改上限…</translation>
    </message>
    <message>
        <source>Log: %1</source>
        <translation>日志：%1</translation>
    </message>
    <message>
        <source>see the log</source>
        <translation>见日志</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>Restart the computer, then open rocmate again: this window then shows whether the new limit is in force. Where the initramfs holds ttm, make it again before the restart (the notes above say how).</source>
        <translation>请重启电脑，然后再次打开rocmate：这个窗口会显示新上限是否已生效。如果initramfs中包含ttm，重启前要重新生成initramfs（方法见上面的说明）。</translation>
    </message>
    <message>
        <source>Undone: the file is back as it was. %1</source>
        <translation>已撤销：文件已恢复原样。%1</translation>
    </message>
    <message>
        <source>Done: the new limit is written. %1</source>
        <translation>完成：新上限已写入。%1</translation>
    </message>
    <message>
        <source>Nothing needed changing.</source>
        <translation>没有需要更改的内容。</translation>
    </message>
</context>
<context>
    <name>OverrideTesterPage</name>
    <message>
        <source>Try the override</source>
        <translation>试用覆盖值</translation>
    </message>
    <message>
        <source>Your card runs PyTorch by posing as a close relative (HSA_OVERRIDE_GFX_VERSION). Try the values for real.</source>
        <translation>你的显卡要伪装成相近架构（HSA_OVERRIDE_GFX_VERSION）才能运行PyTorch。在这里实际试一试这些值。</translation>
    </message>
    <message>
        <source>&amp;Try the values</source>
        <translation>试用这些值(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Keep this value</source>
        <translation>保留这个值(&amp;K)</translation>
    </message>
    <message>
        <source>A replayed machine runs nothing: try the values on the computer itself.</source>
        <translation>回放的机器不会运行任何东西：请在那台电脑上实际试用这些值。</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Values to try, in this order: %1</source>
        <translation>按以下顺序尝试这些值：%1</translation>
    </message>
    <message>
        <source>no override</source>
        <translation>不覆盖</translation>
    </message>
    <message>
        <source>%1: %2 — %3</source>
        <translation>%1：%2 — %3</translation>
    </message>
    <message>
        <source>Trying, one value at a time…</source>
        <translation>正在逐个尝试……</translation>
    </message>
    <message>
        <source>Written into the environment&apos;s variables (rocmate-env.sh): every PyTorch run there gets it.</source>
        <translation>已写入环境的变量文件（rocmate-env.sh）：在这个环境里运行的PyTorch都会用到它。</translation>
    </message>
    <message>
        <source>It could not be written (has the set-up made the environment?): see %1.</source>
        <translation>无法写入（安装是否已经创建了这个环境？）：见 %1。</translation>
    </message>
    <message>
        <source>No value made PyTorch work: see the system check for the cause.</source>
        <translation>没有哪个值能让PyTorch运行：原因见系统检查。</translation>
    </message>
    <message>
        <source>PyTorch works without an override: leave it unset.</source>
        <translation>不用覆盖值PyTorch也能运行：不要设置它。</translation>
    </message>
    <message>
        <source>Keep HSA_OVERRIDE_GFX_VERSION=%1.</source>
        <translation>保留 HSA_OVERRIDE_GFX_VERSION=%1。</translation>
    </message>
</context>
<context>
    <name>RepairDialog</name>
    <message>
        <source>repaired; the check on the card failed</source>
        <translation>已修复；但在显卡上的检查失败</translation>
    </message>
    <message>
        <source>failed, rolled back</source>
        <translation>失败，已回退</translation>
    </message>
    <message>
        <source>rolled back in part</source>
        <translation>部分回退</translation>
    </message>
    <message>
        <source>Repair %1&apos;s PyTorch</source>
        <translation>修复%1的PyTorch</translation>
    </message>
    <message>
        <source>%2: %1

A repair replaces this environment&apos;s PyTorch family (torch, torchvision, torchaudio and the like) with the ROCm build for this card, and nothing else. Before it changes anything, rocmate records the environment, so that Roll back can put it back.</source>
        <translation>%2：%1

修复只会把这个环境里的PyTorch一系（torch、torchvision、torchaudio等）换成适合这张显卡的ROCm版本，其他都不动。在做任何改动之前，rocmate会先记录这个环境，之后可以用“回退”恢复原样。</translation>
    </message>
    <message>
        <source>The plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <source>Package</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>Now</source>
        <translation>现在</translation>
    </message>
    <message>
        <source>After</source>
        <translation>修复后</translation>
    </message>
    <message>
        <source>What happens</source>
        <translation>操作</translation>
    </message>
    <message>
        <source>Earlier repairs of this Python</source>
        <translation>这个Python以前的修复</translation>
    </message>
    <message>
        <source>When</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>&amp;Start the repair</source>
        <translation>开始修复(&amp;S)</translation>
    </message>
    <message>
        <source>Roll &amp;back</source>
        <translation>回退(&amp;B)</translation>
    </message>
    <message>
        <source>&amp;Close</source>
        <translation>关闭(&amp;C)</translation>
    </message>
    <message>
        <source>replaced</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>removed</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>added</source>
        <translation>新增</translation>
    </message>
    <message>
        <source>kept (no ROCm build known)</source>
        <translation>保留（不知道有ROCm版本）</translation>
    </message>
    <message>
        <source>follows the new torch</source>
        <translation>随新的torch一起安装</translation>
    </message>
    <message>
        <source>already this build</source>
        <translation>已是这个版本</translation>
    </message>
    <message>
        <source>The check after could not run: %1</source>
        <translation>之后的检查无法运行：%1</translation>
    </message>
    <message>
        <source>PyTorch in that Python now (the doctor&apos;s check, run in it):</source>
        <translation>该 Python 中的 PyTorch 现状（在其中运行的 doctor 检查）：</translation>
    </message>
    <message>
        <source>recorded, not finished</source>
        <translation>已记录，未完成</translation>
    </message>
    <message>
        <source>repaired</source>
        <translation>已修复</translation>
    </message>
    <message>
        <source>rolled back</source>
        <translation>已回退</translation>
    </message>
    <message>
        <source>roll back failed</source>
        <translation>回退失败</translation>
    </message>
    <message>
        <source>Checking PyTorch in that Python…</source>
        <translation>正在检查该 Python 中的 PyTorch…</translation>
    </message>
    <message>
        <source>Reading the environment…</source>
        <translation>正在读取这个环境…</translation>
    </message>
    <message>
        <source>No repair: %1</source>
        <translation>无法修复：%1</translation>
    </message>
    <message>
        <source>From: %1</source>
        <translation>来源：%1</translation>
    </message>
    <message>
        <source>the index each package names</source>
        <translation>各软件包自己指定的索引</translation>
    </message>
    <message>
        <source>The app&apos;s own requirements: %1</source>
        <translation>应用自己的依赖要求：%1</translation>
    </message>
    <message>
        <source>Kept before anything changes: the environment&apos;s pip freeze and its PyTorch family&apos;s versions, in rocmate&apos;s data folder (repairs/). A repair that fails is rolled back by itself.</source>
        <translation>在任何改动之前保留：这个环境的 pip freeze 和PyTorch一系的版本，存放在rocmate的数据文件夹（repairs/）里。修复失败时会自动回退。</translation>
    </message>
    <message>
        <source>Re&amp;install these builds</source>
        <translation>重新安装这些版本(&amp;I)</translation>
    </message>
    <message>
        <source>A replayed machine&apos;s plan is only shown</source>
        <translation>回放的机器的计划只作展示</translation>
    </message>
    <message>
        <source>The repairs of a replayed machine are kept on that machine; none is shown here.</source>
        <translation>回放的机器的修复记录保存在那台机器上，这里不显示。</translation>
    </message>
    <message>
        <source>None yet.</source>
        <translation>还没有。</translation>
    </message>
    <message>
        <source>Putting the environment back as it was</source>
        <translation>正在把环境恢复原样</translation>
    </message>
    <message>
        <source>pip freeze --all matches the record again.</source>
        <translation>pip freeze --all 又与记录一致了。</translation>
    </message>
    <message>
        <source>Rolled back: %1</source>
        <translation>已回退：%1</translation>
    </message>
    <message>
        <source>Rolled back in part: a recorded build that no index carries could not come back (see the log).</source>
        <translation>部分回退：记录中有一个版本没有任何软件源提供，无法恢复（见日志）。</translation>
    </message>
    <message>
        <source>Repaired: the new builds are in place and the check on the card passed.</source>
        <translation>已修复：新版本已装好，在显卡上的检查也通过了。</translation>
    </message>
    <message>
        <source>The new builds are in place, but the check on the card failed: %1
They stay until you press Roll back, which puts the recorded ones back.</source>
        <translation>新版本已装好，但在显卡上的检查失败：%1
它们会保留，直到你按“回退”，把记录中的版本装回去。</translation>
    </message>
    <message>
        <source>The repair failed at “%1”: %2
rocmate put the environment back by itself: %3</source>
        <translation>修复在“%1”这一步失败：%2
rocmate 已自动把环境恢复原样：%3</translation>
    </message>
    <message>
        <source>The repair failed at “%1”: %2
Putting the environment back failed too: Roll back tries again from the record.</source>
        <translation>修复在“%1”这一步失败：%2
恢复环境也失败了：按“回退”会按记录再试一次。</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Nothing was changed: %1</source>
        <translation>没有做任何改动：%1</translation>
    </message>
    <message>
        <source>Rolling back…</source>
        <translation>正在回退…</translation>
    </message>
    <message>
        <source>Repairing…</source>
        <translation>正在修复…</translation>
    </message>
    <message>
        <source>The roll back failed: %1</source>
        <translation>回退失败：%1</translation>
    </message>
    <message>
        <source>see the log</source>
        <translation>见日志</translation>
    </message>
</context>
<context>
    <name>Results</name>
    <message>
        <source>finished</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>same card</source>
        <translation>同款显卡</translation>
    </message>
    <message>
        <source>same chip</source>
        <translation>同款芯片</translation>
    </message>
    <message>
        <source>other card</source>
        <translation>其他显卡</translation>
    </message>
    <message>
        <source>faster</source>
        <translation>更快</translation>
    </message>
    <message>
        <source>slower</source>
        <translation>更慢</translation>
    </message>
    <message>
        <source>about the same</source>
        <translation>差不多</translation>
    </message>
    <message>
        <source>more</source>
        <translation>更多</translation>
    </message>
    <message>
        <source>less</source>
        <translation>更少</translation>
    </message>
    <message>
        <source>better</source>
        <translation>更好</translation>
    </message>
    <message>
        <source>worse</source>
        <translation>更差</translation>
    </message>
    <message>
        <source>within the noise</source>
        <translation>在波动范围内</translation>
    </message>
</context>
<context>
    <name>ResultsPage</name>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>What the benchmark measured, what to keep in mind before quoting it, and reference results of cards like yours.</source>
        <translation>性能测试测得的结果、引用之前要注意的事项，以及同款显卡的参考结果。</translation>
    </message>
    <message>
        <source>Find the fastest settin&amp;gs…</source>
        <translation>找出最快的设置(&amp;G)…</translation>
    </message>
    <message>
        <source>No benchmark has run yet. Go back to the Benchmark page and run one first; its results show here. Earlier runs are in the history.</source>
        <translation>还没有运行过性能测试。请先回到“测试显卡性能”页面运行一次，结果会显示在这里。之前的运行都在历史记录中。</translation>
    </message>
    <message>
        <source>Kept in the history as %1 (History shows every run and compares two).</source>
        <translation>已作为%1保存在历史记录中（在“历史记录”中可以查看每次运行，也可以对比两次运行）。</translation>
    </message>
</context>
<context>
    <name>ResultsView</name>
    <message>
        <source>&amp;Save report…</source>
        <translation>保存报告(&amp;S)…</translation>
    </message>
    <message>
        <source>Copy as &amp;Markdown</source>
        <translation>复制为Markdown(&amp;M)</translation>
    </message>
    <message>
        <source>Open in the bro&amp;wser</source>
        <translation>在浏览器中打开(&amp;W)</translation>
    </message>
    <message>
        <source>Show the fi&amp;le</source>
        <translation>显示文件(&amp;L)</translation>
    </message>
    <message>
        <source>The page written for the browser, in its folder</source>
        <translation>为浏览器写出的页面，在它所在的文件夹中</translation>
    </message>
    <message>
        <source>For a forum post or an issue</source>
        <translation>用于论坛帖子或issue</translation>
    </message>
    <message>
        <source>This report holds no runs.</source>
        <translation>这份报告里没有运行。</translation>
    </message>
    <message>
        <source>rocmate %1 report, %2</source>
        <translation>rocmate %1报告，%2</translation>
    </message>
    <message>
        <source>Machine: %1</source>
        <translation>机器：%1</translation>
    </message>
    <message>
        <source>Software: %1</source>
        <translation>软件：%1</translation>
    </message>
    <message>
        <source>Web page (*.html)</source>
        <translation>网页 (*.html)</translation>
    </message>
    <message>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <source>rocmate report, JSON (*.json)</source>
        <translation>rocmate报告，JSON (*.json)</translation>
    </message>
    <message>
        <source>Save the report</source>
        <translation>保存报告</translation>
    </message>
    <message>
        <source>Saving…</source>
        <translation>正在保存……</translation>
    </message>
    <message>
        <source>Writing the page…</source>
        <translation>正在生成网页……</translation>
    </message>
    <message>
        <source>No file manager could be opened. The page is saved as %1.</source>
        <translation>无法打开文件管理器。页面已保存为 %1。</translation>
    </message>
    <message>
        <source>Saved %1 (%2).</source>
        <translation>已保存到 %1（%2）。</translation>
    </message>
    <message>
        <source>Copied as Markdown: paste it into a forum post or an issue.</source>
        <translation>已复制为Markdown：可以粘贴到论坛帖子或issue里。</translation>
    </message>
    <message>
        <source>Sent to the browser: %1. If no window opens, use Show the file.</source>
        <translation>已交给浏览器：%1。如果没有窗口打开，请使用“显示文件”。</translation>
    </message>
    <message>
        <source>No browser could be opened. The page is saved as %1: open it from a file manager.</source>
        <translation>无法打开浏览器。网页已保存为 %1，请在文件管理器中打开它。</translation>
    </message>
    <message>
        <source>Not saved: %1</source>
        <translation>未能保存：%1</translation>
    </message>
    <message>
        <source>Not copied: %1</source>
        <translation>未能复制：%1</translation>
    </message>
    <message>
        <source>The page could not be written: %1</source>
        <translation>无法写入网页：%1</translation>
    </message>
</context>
<context>
    <name>RocWizard</name>
    <message>
        <source>rocmate</source>
        <translation>rocmate</translation>
    </message>
    <message>
        <source>&amp;History</source>
        <translation>历史记录(&amp;H)</translation>
    </message>
    <message>
        <source>C&amp;ompare</source>
        <translation>对比(&amp;O)</translation>
    </message>
    <message>
        <source>Every benchmark run kept on this computer, and reports you imported</source>
        <translation>这台电脑上保存的每次性能测试运行，以及你导入的报告</translation>
    </message>
    <message>
        <source>Pick two runs and see what differs</source>
        <translation>选择两次运行，看看有什么不同</translation>
    </message>
    <message>
        <source>The language of the app (Language / 语言)</source>
        <translation>应用的语言（Language / 语言）</translation>
    </message>
    <message>
        <source>The set-up is running</source>
        <translation>正在安装</translation>
    </message>
    <message>
        <source>Stop the set-up after the step that is running now, and close? The steps that finished are kept; the next start of rocmate can resume.</source>
        <translation>要在当前步骤完成后停止安装并关闭吗？已完成的步骤会保留；下次启动rocmate时可以继续。</translation>
    </message>
    <message>
        <source>&amp;Stop and close</source>
        <translation>停止并关闭(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Keep going</source>
        <translation>继续安装(&amp;K)</translation>
    </message>
    <message>
        <source>A benchmark is running</source>
        <translation>性能测试正在运行</translation>
    </message>
    <message>
        <source>Cancel the benchmark and close? What it measured so far is kept in the history as cancelled.</source>
        <translation>要取消性能测试并关闭吗？目前已测得的结果会以“已取消”状态保存在历史记录中。</translation>
    </message>
    <message>
        <source>&amp;Cancel it and close</source>
        <translation>取消运行并关闭(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Keep running</source>
        <translation>继续运行(&amp;K)</translation>
    </message>
</context>
<context>
    <name>RunCard</name>
    <message>
        <source>%1 — %2</source>
        <translation>%1 — %2</translation>
    </message>
    <message>
        <source>The run did not measure (%1), and the report says nothing more.</source>
        <translation>这次运行没有测出结果（%1），报告中也没有更多信息。</translation>
    </message>
    <message>
        <source>What happened (%1):</source>
        <translation>发生了什么（%1）：</translation>
    </message>
    <message>
        <source>What to do:</source>
        <translation>怎么做：</translation>
    </message>
    <message>
        <source>Show the de&amp;tails</source>
        <translation>显示详情(&amp;T)</translation>
    </message>
    <message>
        <source>%1: peak %2, sustained %3 of the datasheet&apos;s %4 %5</source>
        <translation>%1：峰值为官方规格%4 %5的%2，持续为%3</translation>
    </message>
    <message>
        <source>%1: %3 of the datasheet&apos;s %4 %5</source>
        <translation>%1：官方规格%4 %5的%3</translation>
    </message>
    <message>
        <source>%1 peak · %2 %3 sustained</source>
        <translation>峰值%1 · 持续%2 %3</translation>
    </message>
    <message>
        <source>Steady: %1, the median of %2 measured steps · p10–p90 %3 · CV %4</source>
        <translation>稳态：%1，实测%2步的中位数 · p10–p90 %3 · CV %4</translation>
    </message>
    <message>
        <source>The median: half the measured steps were faster, half slower. p10–p90: eight steps in ten fell in this range. CV: how much the steps varied (the standard deviation over the mean).</source>
        <translation>中位数：一半实测步比它快，一半比它慢。p10–p90：十步中有八步落在这个范围内。CV：各步之间的波动程度（标准差除以平均值）。</translation>
    </message>
    <message>
        <source>Caution: %1</source>
        <translation>注意：%1</translation>
    </message>
    <message>
        <source>the first step took %1, %2 a steady step (%3)</source>
        <translation>第一步用了%1，是一个稳态步（%3）的%2</translation>
    </message>
    <message>
        <source>the first step took %1</source>
        <translation>第一步用了%1</translation>
    </message>
    <message>
        <source>Cold start</source>
        <translation>冷启动</translation>
    </message>
    <message>
        <source>Warm-up</source>
        <translation>预热</translation>
    </message>
    <message>
        <source>Measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>no peak known for this card</source>
        <translation>这张显卡的峰值未知</translation>
    </message>
    <message>
        <source>Datasheet (%1)</source>
        <translation>官方规格（%1）</translation>
    </message>
    <message>
        <source>Datasheet</source>
        <translation>官方规格</translation>
    </message>
    <message>
        <source>(reserved %1)</source>
        <translation>（预留%1）</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <comment>the machine&apos;s, on the CPU</comment>
        <translation>内存峰值</translation>
    </message>
    <message>
        <source>Peak memory</source>
        <translation>显存峰值</translation>
    </message>
    <message>
        <source>at %1 W</source>
        <translation>平均功耗%1 W</translation>
    </message>
    <message>
        <source>Energy</source>
        <translation>能耗</translation>
    </message>
    <message>
        <source>Per watt</source>
        <translation>每瓦性能</translation>
    </message>
    <message>
        <source>Attention</source>
        <translation>注意力内核</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>注</translation>
    </message>
    <message>
        <source>The first step also loads and tunes the GPU&apos;s kernels, allocates memory and lets the clocks come up: what a fresh start waits before full speed.</source>
        <translation>第一步还要加载并调优GPU的内核函数、分配显存、等频率升上来：这就是每次重新启动后达到全速之前要等的时间。</translation>
    </message>
    <message>
        <source>Figure</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>p10–p90</source>
        <translation>p10–p90</translation>
    </message>
    <message>
        <source>CV</source>
        <translation>CV</translation>
    </message>
    <message>
        <source>Unit</source>
        <translation>单位</translation>
    </message>
    <message>
        <source>Reference results could not be read: %1</source>
        <translation>无法读取参考结果：%1</translation>
    </message>
    <message>
        <source>Reference results</source>
        <translation>参考结果</translation>
    </message>
    <message>
        <source>Cards like mine: reference results for %1</source>
        <translation>同款显卡：%1的参考结果</translation>
    </message>
    <message>
        <source>Comparisons first: a reference is compared only where its harness, backend, OS, precision, batch and steps match this run; any other is a hint.</source>
        <translation>可比较的排在前面：只有测试程序、后端、操作系统、精度、batch和步数都与本次运行一致的参考结果才作对比；其他的仅供参考。</translation>
    </message>
    <message>
        <source>Show one mor&amp;e reference result</source>
        <translation>再显示1条参考结果(&amp;E)</translation>
    </message>
    <message numerus="yes">
        <source>Show %n mor&amp;e reference results</source>
        <translation>
            <numerusform>再显示%n条参考结果(&amp;E)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2) — %3 %4 (%5), %6</source>
        <translation>%1（%2）— %3 %4（%5），%6</translation>
    </message>
    <message>
        <source>Yours: %1 %2 = %3 the reference (%4)</source>
        <translation>你的结果：%1 %2 = 参考值的%3（%4）</translation>
    </message>
    <message>
        <source>[%1]</source>
        <translation>[%1]</translation>
    </message>
    <message>
        <source>Yours: none (%1)</source>
        <translation>你的结果：无（%1）</translation>
    </message>
    <message>
        <source>Conditions: %1</source>
        <translation>条件：%1</translation>
    </message>
    <message>
        <source>Differs: %1</source>
        <translation>不同：%1</translation>
    </message>
    <message>
        <source>Not stated by the source: %1</source>
        <translation>来源未说明：%1</translation>
    </message>
    <message>
        <source>Note: %1</source>
        <translation>注：%1</translation>
    </message>
    <message>
        <source>Method: %1</source>
        <translation>方法：%1</translation>
    </message>
    <message>
        <source>Source: %1</source>
        <translation>来源：%1</translation>
    </message>
</context>
<context>
    <name>RunSetupPage</name>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>done in an earlier run</source>
        <translation>已在之前的运行中完成</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>done</source>
        <translation>完成</translation>
    </message>
    <message>
        <source>done (nothing to change)</source>
        <translation>完成（无需更改）</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>skipped (not ticked)</source>
        <translation>已跳过（未勾选）</translation>
    </message>
    <message>
        <source>%1: %2</source>
        <translation>%1：%2</translation>
    </message>
    <message>
        <source>Run the set-up</source>
        <translation>运行安装</translation>
    </message>
    <message>
        <source>The plan&apos;s steps, as they would run on that machine: a recorded machine&apos;s plan is shown, never carried out here.</source>
        <translation>计划的各个步骤，按它们在那台机器上的运行方式列出：录制机器的计划只显示，绝不会在这里执行。</translation>
    </message>
    <message>
        <source>The plan&apos;s steps, carried out. Root steps ask for the administrator&apos;s password once.</source>
        <translation>逐个执行计划中的步骤。root步骤只会要求输入一次管理员密码。</translation>
    </message>
    <message>
        <source>&amp;Next &gt;</source>
        <translation>下一步(&amp;N) &gt;</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步骤</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Search the log</source>
        <translation>搜索日志</translation>
    </message>
    <message>
        <source>Copy the &amp;log</source>
        <translation>复制日志(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Start</source>
        <translation>开始(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>继续(&amp;R)</translation>
    </message>
    <message>
        <source>Stop after this step</source>
        <translation>这一步完成后停止</translation>
    </message>
    <message>
        <source> (root)</source>
        <translation>（root）</translation>
    </message>
    <message numerus="yes">
        <source>An earlier run stopped after %n step(s): Resume goes on from there, Start begins again.</source>
        <translation>
            <numerusform>上次运行完成%n个步骤后停止了：按“继续”从那里接着运行，按“开始”则从头开始。</numerusform>
        </translation>
    </message>
    <message>
        <source>Running…</source>
        <translation>正在运行……</translation>
    </message>
    <message>
        <source>Stopping after this step…</source>
        <translation>这一步完成后就停止……</translation>
    </message>
    <message>
        <source>Done.</source>
        <translation>完成。</translation>
    </message>
    <message>
        <source>Stopped: %1</source>
        <translation>已停止：%1</translation>
    </message>
    <message>
        <source>Done. Restart the computer, then open rocmate again to verify.</source>
        <translation>完成。请重启电脑，然后再次打开rocmate进行验证。</translation>
    </message>
    <message>
        <source>Done. Log out and back in (the new group counts from the next login), then open rocmate again to verify.</source>
        <translation>完成。请注销并重新登录（新的用户组从下次登录起生效），然后再次打开rocmate进行验证。</translation>
    </message>
    <message>
        <source>Done: everything in the plan is in place.</source>
        <translation>完成：计划中的所有内容都已就位。</translation>
    </message>
    <message>
        <source>Not started: %1. Nothing was changed; Start tries again.</source>
        <translation>未开始：%1。没有做任何更改；按“开始”可以再试一次。</translation>
    </message>
    <message>
        <source>Not finished: %1. What a root step wrote was rolled back; the steps that finished are kept, and Resume goes on from there.</source>
        <translation>未完成：%1。root步骤写入的内容已回退；已完成的步骤会保留，按“继续”可以从那里接着运行。</translation>
    </message>
    <message>
        <source>about %1 s left</source>
        <translation>剩余约%1 s</translation>
    </message>
    <message>
        <source>about %1 min left</source>
        <translation>剩余约%1分钟</translation>
    </message>
</context>
<context>
    <name>SetupPlanPage</name>
    <message>
        <source>PyTorch&apos;s ROCm wheels bring their own ROCm: only your groups, a Python environment and the wheel. The usual choice.</source>
        <translation>PyTorch的ROCm wheel包自带ROCm：只需要设置你的用户组、一个Python环境和wheel包。通常选这个。</translation>
    </message>
    <message>
        <source>AMD&apos;s apt repository for Ubuntu and its derivatives: a system-wide ROCm (for compilers and tools beyond PyTorch).</source>
        <translation>AMD面向Ubuntu及其衍生发行版的apt软件源：系统级安装ROCm（用于PyTorch之外的编译器和工具）。</translation>
    </message>
    <message>
        <source>WSL 2: AMD&apos;s WSL runtime and the swap of the wheel&apos;s HSA runtime.</source>
        <translation>WSL 2：安装AMD的WSL运行时，并替换wheel包自带的HSA运行时。</translation>
    </message>
    <message>
        <source>AMD&apos;s nightly TheRock wheels: newest cards first, a preview.</source>
        <translation>AMD每夜构建的TheRock wheel包：最新的显卡最先支持，属于预览版。</translation>
    </message>
    <message>
        <source>Set-up plan</source>
        <translation>安装计划</translation>
    </message>
    <message>
        <source>Every step, before anything runs. Steps marked root ask for the administrator&apos;s password.</source>
        <translation>运行之前先列出每个步骤。标有root的步骤会要求输入管理员密码。</translation>
    </message>
    <message>
        <source>&amp;Strategy:</source>
        <translation>方案(&amp;S)：</translation>
    </message>
    <message>
        <source>ROCm &amp;release:</source>
        <translation>ROCm版本(&amp;R)：</translation>
    </message>
    <message>
        <source>&amp;Packages:</source>
        <translation>软件包(&amp;P)：</translation>
    </message>
    <message>
        <source>runtime (what PyTorch needs)</source>
        <translation>运行时（PyTorch需要的部分）</translation>
    </message>
    <message>
        <source>SDK (compilers and tools as well)</source>
        <translation>SDK（还包括编译器和工具）</translation>
    </message>
    <message>
        <source>Remove the other ROCm versions installed beside it</source>
        <translation>卸载已同时安装的其他ROCm版本</translation>
    </message>
    <message>
        <source>Comment out the &amp;lines of your shell files that export a wrong value (a copy of each file is kept)</source>
        <translation>注释掉启动文件中导出错误值的行（每个文件都保留一份副本）(&amp;L)</translation>
    </message>
    <message>
        <source>Cop&amp;y as a shell script</source>
        <translation>复制为shell脚本(&amp;Y)</translation>
    </message>
    <message>
        <source> (not for this machine)</source>
        <translation>（不适用于这台机器）</translation>
    </message>
    <message>
        <source> (last route, unverified)</source>
        <translation>（最后一条路线，未经验证）</translation>
    </message>
    <message>
        <source> (recommended)</source>
        <translation>（推荐）</translation>
    </message>
    <message>
        <source>the best fit (%1)</source>
        <translation>最合适的版本（%1）</translation>
    </message>
    <message>
        <source>TheRock&apos;s nightly wheels bring their own ROCm: there is no release to choose.</source>
        <translation>TheRock的每夜构建wheel包自带ROCm：无需选择版本。</translation>
    </message>
    <message>
        <source>This choice cannot be carried out here: %1</source>
        <translation>这个选择无法在这里执行：%1</translation>
    </message>
    <message>
        <source>No set-up is possible: %1</source>
        <translation>无法安装：%1</translation>
    </message>
    <message>
        <source>ROCm %1, PyTorch from %2</source>
        <translation>ROCm %1，PyTorch来自 %2</translation>
    </message>
    <message>
        <source>PyTorch from %1, with the ROCm its wheels bring</source>
        <translation>PyTorch来自%1，使用其wheel包自带的ROCm</translation>
    </message>
    <message>
        <source>Python environment: %1</source>
        <translation>Python环境：%1</translation>
    </message>
    <message>
        <source>Variables: %1</source>
        <translation>环境变量：%1</translation>
    </message>
    <message>
        <source>Unsets: %1</source>
        <translation>取消的环境变量：%1</translation>
    </message>
    <message>
        <source>Unverified: the last route that may still run a card AMD no longer supports, not a supported set-up. Read its known problems below before going on.</source>
        <translation>未经验证：这是可能仍能运行一块AMD已不再支持的显卡的最后一条路线，而不是受支持的安装方式。继续之前，请先阅读下面列出的已知问题。</translation>
    </message>
    <message>
        <source>Next stays off: %1</source>
        <translation>“下一步”不可用：%1</translation>
    </message>
    <message>
        <source>Next carries it out (or run  rocmate install  in a terminal, or copy it as a shell script).</source>
        <translation>按“下一步”执行这个计划（也可以在终端里运行 rocmate install，或者把它复制为shell脚本）。</translation>
    </message>
    <message>
        <source>Copied the plan as a shell script.</source>
        <translation>已把计划复制为shell脚本。</translation>
    </message>
</context>
<context>
    <name>Steps</name>
    <message>
        <source>as root (asks for the password)</source>
        <translation>以root身份运行（会要求输入密码）</translation>
    </message>
    <message>
        <source>as you</source>
        <translation>以你的身份运行</translation>
    </message>
    <message>
        <source>Skipped: tick “Comment out the lines of your shell files that export a wrong value” above to include it.</source>
        <translation>已跳过：勾选上方的“注释掉启动文件中导出错误值的行”即可加入此步骤。</translation>
    </message>
    <message>
        <source>Skipped: tick “Remove the other ROCm versions installed beside it” above to include it.</source>
        <translation>已跳过：勾选上方的“卸载已同时安装的其他ROCm版本”即可加入此步骤。</translation>
    </message>
</context>
<context>
    <name>SuiteCard</name>
    <message>
        <source>batch %1, %2</source>
        <translation>batch %1（%2）</translation>
    </message>
    <message>
        <source>The first run on a card may take %1 more: the GPU libraries pick their kernels once.</source>
        <translation>在一张显卡上第一次运行可能要多花%1：GPU库要先挑选一次内核函数。</translation>
    </message>
    <message>
        <source>Warning: %1</source>
        <translation>警告：%1</translation>
    </message>
</context>
<context>
    <name>SystemCheckPage</name>
    <message>
        <source>System check</source>
        <translation>系统检查</translation>
    </message>
    <message>
        <source>What this computer has, and what stands between it and PyTorch on the GPU.</source>
        <translation>这台电脑有什么，以及要在GPU上运行PyTorch还差什么。</translation>
    </message>
    <message>
        <source>Graphics card</source>
        <translation>显卡</translation>
    </message>
    <message>
        <source>Target</source>
        <translation>gfx版本</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>显存</translation>
    </message>
    <message>
        <source>ROCm support</source>
        <translation>ROCm支持情况</translation>
    </message>
    <message>
        <source>&amp;Re-check</source>
        <translation>重新检查(&amp;R)</translation>
    </message>
    <message>
        <source>Check another &amp;Python…</source>
        <translation>检查另一个Python(&amp;P)…</translation>
    </message>
    <message>
        <source>&amp;Copy for a forum post</source>
        <translation>复制为论坛帖子(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Save snapshot…</source>
        <translation>保存快照(&amp;S)…</translation>
    </message>
    <message>
        <source>Checking this computer…</source>
        <translation>正在检查这台电脑……</translation>
    </message>
    <message>
        <source>The check could not finish</source>
        <translation>检查未能完成</translation>
    </message>
    <message>
        <source>Saved the replayed machine (a copy of %1) in %2; this computer was not recorded. Attach the folder (zipped) to a bug report.</source>
        <translation>已将回放的机器（%1 的副本）保存到 %2；没有记录这台电脑。请把该文件夹（压缩后）附在错误报告中。</translation>
    </message>
    <message>
        <source>Snapshot saved in %1. Attach the folder (zipped) to a bug report.</source>
        <translation>快照已保存到 %1。请把这个文件夹压缩后附在bug报告里。</translation>
    </message>
    <message>
        <source>Ready: PyTorch can use this card.</source>
        <translation>已就绪：PyTorch可以使用这张显卡。</translation>
    </message>
    <message>
        <source>GPU &amp;memory…</source>
        <translation>GPU内存(&amp;M)…</translation>
    </message>
    <message>
        <source>Repair &amp;this Python…</source>
        <translation>修复这个Python(&amp;T)…</translation>
    </message>
    <message>
        <source>Replace its PyTorch family with the ROCm build for this card, with a way back</source>
        <translation>把其中的PyTorch一系换成适合这张显卡的ROCm版本，可以回退</translation>
    </message>
    <message>
        <source>Apps&apos; Python environments</source>
        <translation>应用的Python环境</translation>
    </message>
    <message>
        <source>App</source>
        <translation>应用</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>PyTorch</source>
        <translation>PyTorch</translation>
    </message>
    <message>
        <source>Reaches the GPU</source>
        <translation>能否使用GPU</translation>
    </message>
    <message>
        <source>How much system memory the integrated GPU can use, and how much to give it</source>
        <translation>集成显卡能使用多少系统内存，以及应该分给它多少</translation>
    </message>
    <message>
        <source>Saves the replayed machine: a copy of its folder</source>
        <translation>保存回放的机器：复制它的文件夹</translation>
    </message>
    <message>
        <source>Records this computer, anonymised, into an empty folder</source>
        <translation>把这台电脑的信息匿名记录到一个空文件夹</translation>
    </message>
    <message>
        <source>Checked again at %1: the same as before.</source>
        <translation>%1 重新检查：与之前相同。</translation>
    </message>
    <message>
        <source>Checked again at %1: %2 fixed since, %3 new.</source>
        <translation>%1 重新检查：已修复%2项，新出现%3项。</translation>
    </message>
    <message>
        <source>Not supported by AMD any more, but a last route may still run this card: unverified. Next shows it.</source>
        <translation>AMD已不再支持这块显卡，但最后一条路线也许仍能运行它：未经验证。点击“下一步”查看。</translation>
    </message>
    <message>
        <source>Not supported: see the problems below.</source>
        <translation>不支持：见下面的问题。</translation>
    </message>
    <message>
        <source>Nothing to fix, but not yet proved: the Verify page runs PyTorch on the card.</source>
        <translation>没有要解决的问题，但尚未验证：“验证”页面会在显卡上实际运行PyTorch。</translation>
    </message>
    <message numerus="yes">
        <source>Ready after these fixes (%n to fix).</source>
        <translation>
            <numerusform>解决以下问题后即可就绪（需解决%n项）。</numerusform>
        </translation>
    </message>
    <message>
        <source>unknown system</source>
        <translation>未知系统</translation>
    </message>
    <message>
        <source>, WSL %1</source>
        <translation>，WSL %1</translation>
    </message>
    <message>
        <source>not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <source>not checked (see below)</source>
        <translation>未检查（见下文）</translation>
    </message>
    <message>
        <source>System: %1%2, kernel %3
PyTorch: %4</source>
        <translation>系统：%1%2，内核%3
PyTorch：%4</translation>
    </message>
    <message>
        <source>official</source>
        <translation>官方支持</translation>
    </message>
    <message>
        <source>works with override %1</source>
        <translation>用覆盖值%1可以运行</translation>
    </message>
    <message>
        <source>not supported</source>
        <translation>不支持</translation>
    </message>
    <message>
        <source>not an AMD card</source>
        <translation>不是AMD显卡</translation>
    </message>
    <message>
        <source>newer than rocmate knows</source>
        <translation>比rocmate所知的更新</translation>
    </message>
    <message>
        <source>the driver did not start it (%1 once it does)</source>
        <translation>驱动没有启动它（启动后为%1）</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>能</translation>
    </message>
    <message>
        <source>no: %1</source>
        <translation>不能：%1</translation>
    </message>
    <message>
        <source>Rep&amp;air…</source>
        <translation>修复(&amp;A)…</translation>
    </message>
    <message>
        <source>Repair…</source>
        <translation>修复…</translation>
    </message>
    <message>
        <source>Show the repair plan for %1</source>
        <translation>显示 %1 的修复计划</translation>
    </message>
    <message>
        <source>Chec&amp;k</source>
        <translation>检查(&amp;K)</translation>
    </message>
    <message>
        <source>Check</source>
        <translation>检查</translation>
    </message>
    <message>
        <source>A replayed machine answers only for the Python it recorded</source>
        <translation>回放的机器只能回答它当时记录的那个Python</translation>
    </message>
    <message>
        <source>Run the check in this Python: its PyTorch on the card</source>
        <translation>在这个Python里运行检查：它的PyTorch能否在显卡上运行</translation>
    </message>
    <message>
        <source>%1&apos;s PyTorch changed: its row shows it now. The findings above are from the check before; Re-check to see them anew.</source>
        <translation>%1 的 PyTorch 已经变了：它那一行显示的是现在的样子。上面的检查结果还是之前那次检查的，点“重新检查”即可看到最新结果。</translation>
    </message>
    <message>
        <source>No public output shows this route working on this card: the Set-up plan lists its known problems, and its last step shows whether it works here. Going on is your choice.</source>
        <translation>没有公开的输出显示这条路线能在这块显卡上工作：安装计划会列出它的已知问题，计划的最后一步会检验它在这里能否工作。是否继续由你决定。</translation>
    </message>
    <message>
        <source>Without PyTorch there is nothing to benchmark here: check another Python that has it, and the benchmarks run on what it sees (a GPU, or the CPU).</source>
        <translation>没有PyTorch，这里就没有什么可测：检查另一个装有PyTorch的Python，性能测试就会在它能看到的设备上运行（GPU或CPU）。</translation>
    </message>
    <message>
        <source>The benchmarks still run here, on the CPU (PyTorch %1 sees no GPU): slowly, as a check that they run. Next goes to them.</source>
        <translation>性能测试仍可在这台电脑的CPU上运行（PyTorch %1看不到GPU）：速度很慢，只用来检查测试能否运行。按“下一步”进入性能测试。</translation>
    </message>
    <message>
        <source>the GPU</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>The benchmarks still run here, on %1 through PyTorch %2. Next goes to them.</source>
        <translation>性能测试仍可在这台电脑上通过PyTorch %2在%1上运行。按“下一步”进入性能测试。</translation>
    </message>
    <message>
        <source>shared, up to %1 GiB of system memory</source>
        <translation>与系统共用，最多%1 GiB系统内存</translation>
    </message>
    <message>
        <source>shared with system memory (%1 GiB set aside)</source>
        <translation>与系统共用内存（预留%1 GiB）</translation>
    </message>
    <message>
        <source>shared with system memory</source>
        <translation>与系统共用内存</translation>
    </message>
    <message>
        <source>The Python that holds PyTorch</source>
        <translation>装有PyTorch的Python</translation>
    </message>
    <message>
        <source>Copied: the check as Markdown, without your user name, host name or home folder.</source>
        <translation>已复制：Markdown格式的检查结果，不含你的用户名、主机名和主文件夹。</translation>
    </message>
    <message>
        <source>An empty folder for the snapshot</source>
        <translation>选择一个空文件夹来保存快照</translation>
    </message>
    <message>
        <source>Copying the replayed machine…</source>
        <translation>正在复制回放的机器…</translation>
    </message>
    <message>
        <source>Recording this computer…</source>
        <translation>正在记录这台电脑……</translation>
    </message>
</context>
<context>
    <name>TuneDialog</name>
    <message>
        <source>Find the fastest settings</source>
        <translation>找出最快的设置</translation>
    </message>
    <message>
        <source>Runs the suite with today&apos;s defaults, then once with each setting that may help on this card (variables such as TORCH_BLAS_PREFER_HIPBLASLT or MIOPEN_FIND_MODE, bf16 or fp16, channels_last, torch.compile), each in a fresh worker with the same checks as a benchmark, and ranks them by the suite&apos;s headline with its spread.</source>
        <translation>先用今天的默认设置运行测试项，再对每个可能在本卡上有帮助的设置各运行一次（如 TORCH_BLAS_PREFER_HIPBLASLT 或 MIOPEN_FIND_MODE 等变量，bf16 或 fp16、channels_last、torch.compile），每次都在新的工作进程中、按性能测试的同样检查进行，并按测试项的主要指标及其波动排名。</translation>
    </message>
    <message>
        <source>&amp;Suite:</source>
        <translation>测试项(&amp;S)：</translation>
    </message>
    <message>
        <source>&amp;Device:</source>
        <translation>设备(&amp;D)：</translation>
    </message>
    <message>
        <source>&amp;Budget:</source>
        <translation>时间预算(&amp;B)：</translation>
    </message>
    <message>
        <source>The GPU (cuda:0)</source>
        <translation>GPU（cuda:0）</translation>
    </message>
    <message>
        <source>The CPU (no GPU)</source>
        <translation>CPU（不用 GPU）</translation>
    </message>
    <message>
        <source>T&amp;iny shapes: a smoke run, not a measurement</source>
        <translation>小尺寸(&amp;I)：冒烟测试，不是正式测量</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>S&amp;tart</source>
        <translation>开始(&amp;T)</translation>
    </message>
    <message>
        <source>St&amp;op</source>
        <translation>停止(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Keep these</source>
        <translation>保留这些(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <source>Setting</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>Headline</source>
        <translation>主要指标</translation>
    </message>
    <message>
        <source>CV</source>
        <translation>CV</translation>
    </message>
    <message>
        <source>vs defaults</source>
        <translation>相对默认</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Budget %1: today&apos;s defaults first, then up to %2 settings, each measured for %3 s. Settings that do not apply to this card are listed, not run.</source>
        <translation>时间预算 %1：先测今天的默认设置，再测最多 %2 个设置，每个测量 %3 秒。不适用于本卡的设置会列出，但不运行。</translation>
    </message>
    <message>
        <source>Starting today&apos;s defaults…</source>
        <translation>正在启动今天的默认设置…</translation>
    </message>
    <message>
        <source>Stopping after the run in progress…</source>
        <translation>当前这次运行结束后停止…</translation>
    </message>
    <message>
        <source>today&apos;s defaults</source>
        <translation>今天的默认设置</translation>
    </message>
    <message>
        <source>Measuring %1 of %2: %3 — about %4 left</source>
        <translation>正在测量第 %1 个，共 %2 个：%3 —— 约剩 %4</translation>
    </message>
    <message>
        <source>Stopped after %1 (budget %2).</source>
        <translation>用时 %1 后停止（预算 %2）。</translation>
    </message>
    <message>
        <source>Done in %1 (budget %2).</source>
        <translation>用时 %1 完成（预算 %2）。</translation>
    </message>
    <message>
        <source>It could not be written (has the set-up made the environment?): see %1.</source>
        <translation>无法写入（安装是否已经创建了这个环境？）：见 %1。</translation>
    </message>
    <message>
        <source>Not a variable, so nothing was written: on the Benchmark page choose %1.</source>
        <translation>这不是变量，所以什么也没写：请在“性能测试”页选择 %1。</translation>
    </message>
    <message>
        <source>Written into %1: %2. Every PyTorch run of that environment gets them; Undo puts back what was there.</source>
        <translation>已写入 %1：%2。该环境中的每次 PyTorch 运行都会用到它们；“撤销”可恢复原来的内容。</translation>
    </message>
    <message>
        <source>Put back in %1: %2.</source>
        <translation>已在 %1 中恢复：%2。</translation>
    </message>
    <message>
        <source>no tuned variable</source>
        <translation>没有调优变量</translation>
    </message>
    <message>
        <source>It could not be written back: see %1.</source>
        <translation>没能写回：见 %1。</translation>
    </message>
</context>
<context>
    <name>VerifyPage</name>
    <message>
        <source>Verify PyTorch</source>
        <translation>验证PyTorch</translation>
    </message>
    <message>
        <source>PyTorch&apos;s version, its ROCm, whether it sees the card, and a matrix product on the GPU compared with the CPU.</source>
        <translation>PyTorch的版本、它的ROCm、它能否识别显卡，以及在GPU上算一次矩阵乘法并与CPU的结果对比。</translation>
    </message>
    <message>
        <source>Check &amp;again</source>
        <translation>重新检查(&amp;A)</translation>
    </message>
    <message>
        <source>Running PyTorch on the card…</source>
        <translation>正在显卡上运行PyTorch……</translation>
    </message>
    <message>
        <source>PyTorch works on the card (in %1).</source>
        <translation>PyTorch可以在显卡上运行（位于 %1）。</translation>
    </message>
    <message>
        <source>PyTorch sees the card; its computations on the card are not checked yet (in %1).</source>
        <translation>PyTorch能看到显卡；但它在显卡上的计算尚未检查（在%1中）。</translation>
    </message>
    <message>
        <source>Not yet: see the red lines (in %1).</source>
        <translation>还不行：请看红色的行（位于 %1）。</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences</comment>
        <translation>%1%2</translation>
    </message>
    <message>
        <source>As recorded: a replayed machine runs nothing.</source>
        <translation>这些是记录下来的结果：回放的机器不会运行任何东西。</translation>
    </message>
    <message>
        <source>OK</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>Problem</source>
        <translation>有问题</translation>
    </message>
    <message>
        <source>Not checked</source>
        <translation>未检查</translation>
    </message>
    <message>
        <source>%1 — %2: %3</source>
        <translation>%1 — %2：%3</translation>
    </message>
</context>
<context>
    <name>WelcomePage</name>
    <message>
        <source>Welcome to rocmate</source>
        <translation>欢迎使用rocmate</translation>
    </message>
    <message>
        <source>PyTorch on your AMD graphics card, step by step.</source>
        <translation>一步步让PyTorch在你的AMD显卡上运行。</translation>
    </message>
    <message>
        <source>&lt;p&gt;rocmate finds out what your computer has, sets up what is missing, and then measures your card.&lt;/p&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;Check&lt;/b&gt; — the graphics card, its driver, ROCm and PyTorch. Nothing is changed.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Set up&lt;/b&gt; — a plan you can read first: every step with its command. Steps that change the system (adding you to the &lt;i&gt;render&lt;/i&gt; group, AMD&apos;s package repository) ask for the administrator&apos;s password once; the rest runs as you.&lt;/li&gt;&lt;li&gt;&lt;b&gt;Benchmark&lt;/b&gt; — real PyTorch workloads with a report you can share.&lt;/li&gt;&lt;/ol&gt;&lt;p&gt;Press &lt;b&gt;Next&lt;/b&gt; to check this computer.&lt;/p&gt;</source>
        <translation>&lt;p&gt;rocmate会查明你的电脑有什么，装上缺少的部分，然后测试你的显卡性能。&lt;/p&gt;&lt;ol&gt;&lt;li&gt;&lt;b&gt;检查&lt;/b&gt;——显卡、驱动、ROCm和PyTorch。不会做任何更改。&lt;/li&gt;&lt;li&gt;&lt;b&gt;安装&lt;/b&gt;——先给你一份可以阅读的计划：每个步骤都附有命令。更改系统的步骤（把你加入&lt;i&gt;render&lt;/i&gt;用户组、添加AMD的软件源）只会要求输入一次管理员密码；其余步骤以你的身份运行。&lt;/li&gt;&lt;li&gt;&lt;b&gt;性能测试&lt;/b&gt;——用真实的PyTorch负载测试，并生成可以分享的报告。&lt;/li&gt;&lt;/ol&gt;&lt;p&gt;按&lt;b&gt;下一步&lt;/b&gt;检查这台电脑。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;i&gt;Replaying the recorded machine in %1: nothing on this computer is read or changed.&lt;/i&gt;&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;i&gt;正在回放 %1 中记录的机器：不会读取或更改这台电脑上的任何内容。&lt;/i&gt;&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>&amp;About rocmate</source>
        <translation>关于 rocmate(&amp;A)</translation>
    </message>
    <message>
        <source>Version, licence and the notices of the software rocmate carries</source>
        <translation>版本、许可证，以及 rocmate 附带软件的声明</translation>
    </message>
    <message>
        <source>Application menu</source>
        <translation>应用程序菜单</translation>
    </message>
    <message>
        <source>rocmate is in the application menu, added as %1. It starts this AppImage.</source>
        <translation>rocmate已在应用程序菜单中，添加为 %1。它启动的就是这个AppImage。</translation>
    </message>
    <message>
        <source>The application menu starts another copy of rocmate: %1. Add this one to start it instead.</source>
        <translation>应用程序菜单启动的是另一份rocmate：%1。添加这一份，改为启动它。</translation>
    </message>
    <message>
        <source>The application menu&apos;s rocmate points at %1, which is no longer there (moved or deleted). Add this copy to mend it.</source>
        <translation>应用程序菜单中的rocmate指向 %1，但那里已经没有这个文件了（被移动或删除）。添加这一份即可修复。</translation>
    </message>
    <message>
        <source>The application menu already has a rocmate entry that rocmate did not write (%1); it is left as it is.</source>
        <translation>应用程序菜单中已有一个rocmate菜单项，但不是rocmate写入的（%1）；rocmate不会改动它。</translation>
    </message>
    <message>
        <source>Start this AppImage from your desktop&apos;s application menu, like any other app: rocmate adds its own entry and icon, and removes them again when asked.</source>
        <translation>像其他应用一样，从桌面的应用程序菜单启动这个AppImage：rocmate会添加自己的菜单项和图标，需要时也会再移除它们。</translation>
    </message>
    <message>
        <source>Add to the application &amp;menu</source>
        <translation>添加到应用程序菜单(&amp;M)</translation>
    </message>
    <message>
        <source>Remove from the application &amp;menu</source>
        <translation>移出应用程序菜单(&amp;M)</translation>
    </message>
    <message>
        <source>Not removed: %1</source>
        <translation>未移除：%1</translation>
    </message>
    <message>
        <source>Not added: %1</source>
        <translation>未添加：%1</translation>
    </message>
    <message>
        <source>Removed: rocmate&apos;s entry and its icon are gone from the application menu.</source>
        <translation>已移除：rocmate的菜单项和图标已从应用程序菜单中删除。</translation>
    </message>
</context>
<context>
    <name>WindowsSidePage</name>
    <message>
        <source>On Windows 11, install AMD Software: Adrenalin Edition 26.2.2 or newer (it brings ROCm&apos;s WSL support, ROCDXG; AMD&apos;s ROCm pages for Radeon and Ryzen, linked below, name the version for each ROCm release), then restart Windows.
In PowerShell: wsl --update, then wsl --shutdown, and open this distribution again.
Only for ROCm 7.2 in WSL: install the Windows SDK too; librocdxg is built against it in WSL (the set-up plan shows how).
Check again here.</source>
        <translation>在 Windows 11 上安装 AMD Software: Adrenalin Edition 26.2.2 或更新版本（它带来 ROCm 的 WSL 支持 ROCDXG；下方链接的 AMD Radeon 与 Ryzen ROCm 页面列出了每个 ROCm 版本对应的驱动版本），然后重启 Windows。
在 PowerShell 中：wsl --update，然后 wsl --shutdown，再重新打开这个发行版。
仅当在 WSL 中使用 ROCm 7.2 时：还要安装 Windows SDK；librocdxg 要在 WSL 中针对它编译（安装计划会说明怎么做）。
然后在这里重新检查。</translation>
    </message>
    <message>
        <source>AMD&apos;s ROCm pages for Radeon and Ryzen</source>
        <translation>AMD的Radeon与Ryzen ROCm页面</translation>
    </message>
    <message>
        <source>librocdxg, ROCm&apos;s bridge to the Windows driver</source>
        <translation>librocdxg：ROCm通往Windows驱动的桥梁</translation>
    </message>
    <message>
        <source>The Windows side</source>
        <translation>Windows侧</translation>
    </message>
    <message>
        <source>In WSL 2 the GPU belongs to Windows: its AMD driver must support WSL.</source>
        <translation>在WSL 2中，GPU由Windows管理：Windows上的AMD驱动必须支持WSL。</translation>
    </message>
    <message>
        <source>Windows sees</source>
        <translation>Windows识别到的显卡</translation>
    </message>
    <message>
        <source>Driver</source>
        <translation>驱动</translation>
    </message>
    <message>
        <source>What to do on Windows when something above is not right:</source>
        <translation>如果上面有不对的地方，请在Windows上这样做：</translation>
    </message>
    <message>
        <source>&amp;Re-check</source>
        <translation>重新检查(&amp;R)</translation>
    </message>
    <message>
        <source>&amp;Copy the PowerShell steps</source>
        <translation>复制 PowerShell 步骤(&amp;C)</translation>
    </message>
    <message>
        <source>The check could not finish: %1</source>
        <translation>检查未能完成：%1</translation>
    </message>
    <message>
        <source>WSL %1, kernel %2.</source>
        <translation>WSL %1，内核%2。</translation>
    </message>
    <message>
        <source>not known</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>Windows 11</source>
        <translation>Windows 11</translation>
    </message>
    <message>
        <source>Windows 10</source>
        <translation>Windows 10</translation>
    </message>
    <message>
        <source>Windows</source>
        <translation>Windows</translation>
    </message>
    <message>
        <source>%1 (version %2), AMD Adrenalin %3.</source>
        <translation>%1（版本 %2），AMD Adrenalin %3。</translation>
    </message>
    <message>
        <source>Windows could not be asked: %1</source>
        <translation>无法向Windows查询：%1</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <comment>two sentences</comment>
        <translation>%1%2</translation>
    </message>
</context>
</TS>
