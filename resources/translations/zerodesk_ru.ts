<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="ru_RU" sourcelanguage="en_US">
<context>
    <name>ChartPanel</name>
    <message>
        <source>Per-stage memory chart</source>
        <translation>Диаграмма памяти по стадиям</translation>
    </message>
    <message>
        <source>Memory versus Nd chart</source>
        <translation>Диаграмма памяти в зависимости от Nd</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>Полей с ошибками: {n}; диаграмма показывает последний корректный план.</translation>
    </message>
    <message>
        <source>custom architecture</source>
        <translation>своя архитектура</translation>
    </message>
    <message>
        <source>raw parameter count</source>
        <translation>заданное число параметров</translation>
    </message>
    <message>
        <source>Per-rank model-state memory by ZeRO stage</source>
        <translation>Память состояний модели на участника по стадиям ZeRO</translation>
    </message>
    <message>
        <source>Per-rank model states versus Nd</source>
        <translation>Состояния модели на участника в зависимости от Nd</translation>
    </message>
    <message>
        <source>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPUs) · figures in {unit} ({note})</source>
        <translation>{name}: P = {p} ({short}) · Nd = {nd} ({nodes} × {gpn} GPU) · значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>Estimated activations on top: {act} per rank (sequence {seq} × micro-batch {mb}; an estimate).</source>
        <translation>Сверху — оценка активаций: {act} на участника (последовательность {seq} × микробатч {mb}; это оценка).</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Примечание: {note}.</translation>
    </message>
    <message>
        <source>computed, {profile}; {unit}; the dotted line marks the current Nd = {nd}</source>
        <translation>расчёт, {profile}; {unit}; пунктир отмечает текущее Nd = {nd}</translation>
    </message>
</context>
<context>
    <name>DpChart</name>
    <message>
        <source>Data-parallel degree Nd (log scale)</source>
        <translation>Степень параллелизма по данным Nd (логарифмическая шкала)</translation>
    </message>
    <message>
        <source>Per rank, {unit}</source>
        <translation>На участника, {unit}</translation>
    </message>
    <message>
        <source>current Nd = {nd}</source>
        <translation>текущее Nd = {nd}</translation>
    </message>
    <message>
        <source>GPU memory {v}</source>
        <translation>Память GPU {v}</translation>
    </message>
</context>
<context>
    <name>Files</name>
    <message>
        <source>ZeroDesk plans (*{suffix})</source>
        <translation>Планы ZeroDesk (*{suffix})</translation>
    </message>
    <message>
        <source>Untitled</source>
        <translation>Без имени</translation>
    </message>
    <message>
        <source>Open plan</source>
        <translation>Открыть план</translation>
    </message>
    <message>
        <source>All files (*)</source>
        <translation>Все файлы (*)</translation>
    </message>
    <message>
        <source>Save plan as</source>
        <translation>Сохранить план как</translation>
    </message>
    <message>
        <source>Export chart</source>
        <translation>Экспорт диаграммы</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>Изображения SVG (*.svg)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>Изображения PNG (*.png)</translation>
    </message>
</context>
<context>
    <name>GlossaryDock</name>
    <message>
        <source>Glossary</source>
        <translation>Глоссарий</translation>
    </message>
    <message>
        <source>Filter claims…</source>
        <translation>Фильтр утверждений…</translation>
    </message>
    <message>
        <source>Filter glossary claims</source>
        <translation>Фильтр утверждений глоссария</translation>
    </message>
    <message>
        <source>Glossary card</source>
        <translation>Карточка глоссария</translation>
    </message>
    <message>
        <source>What to check</source>
        <translation>Что проверить</translation>
    </message>
    <message>
        <source>What to check (checklist)</source>
        <translation>Что проверить (чек-лист)</translation>
    </message>
    <message>
        <source>Boundary</source>
        <translation>Граница применимости</translation>
    </message>
    <message>
        <source>Sources</source>
        <translation>Источники</translation>
    </message>
    <message>
        <source>{shown} of {total}</source>
        <translation>{shown} из {total}</translation>
    </message>
    <message>
        <source>{shown} of {total} claims shown</source>
        <translation>Показано утверждений: {shown} из {total}</translation>
    </message>
    <message>
        <source>Also known as</source>
        <translation>Также ищут</translation>
    </message>
    <message>
        <source>Definition</source>
        <translation>Определение</translation>
    </message>
    <message>
        <source>Why it matters</source>
        <translation>Зачем это знать</translation>
    </message>
    <message>
        <source>In use in this plan</source>
        <translation>Используется в этом плане</translation>
    </message>
    <message>
        <source>What is confirmed</source>
        <translation>Что подтверждено</translation>
    </message>
    <message>
        <source>No claim matches the filter.</source>
        <translation>Ни одно утверждение не подходит под фильтр.</translation>
    </message>
    <message>
        <source>Primary sources</source>
        <translation>Первоисточники</translation>
    </message>
    <message>
        <source>Related concepts</source>
        <translation>Связанные понятия</translation>
    </message>
    <message>
        <source>Accounting profile: {name}</source>
        <translation>Профиль учёта: {name}</translation>
    </message>
    <message>
        <source>Scheme: {name}</source>
        <translation>Схема: {name}</translation>
    </message>
    <message>
        <source>Filtered by “{q}”: {n} of {total} claims.</source>
        <translation>Фильтр «{q}»: утверждений {n} из {total}.</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <source>Mixed-precision Adam (paper §3.1, 16 B/param)</source>
        <translation>Adam со смешанной точностью (статья, §3.1, 16 Б/параметр)</translation>
    </message>
    <message>
        <source>FP32 Adam (16 B/param)</source>
        <translation>Adam в FP32 (16 Б/параметр)</translation>
    </message>
    <message>
        <source>BF16 + FP32 grad accumulation, Adam (20 B/param)</source>
        <translation>BF16 с накоплением градиентов в FP32, Adam (20 Б/параметр)</translation>
    </message>
    <message>
        <source>Mixed-precision SGD with momentum (12 B/param)</source>
        <translation>SGD с моментом, смешанная точность (12 Б/параметр)</translation>
    </message>
    <message>
        <source>Mixed-precision 8-bit Adam (10 B/param)</source>
        <translation>8-битный Adam, смешанная точность (10 Б/параметр)</translation>
    </message>
    <message>
        <source>ZeRO paper (§3.1, §5)</source>
        <translation>Статья ZeRO (§3.1, §5)</translation>
    </message>
    <message>
        <source>PyTorch engines (DDP, ZeroRedundancyOptimizer, FSDP2)</source>
        <translation>Движки PyTorch (DDP, ZeroRedundancyOptimizer, FSDP2)</translation>
    </message>
    <message>
        <source>paper profile</source>
        <translation>профиль «статья»</translation>
    </message>
    <message>
        <source>torch profile</source>
        <translation>профиль «torch»</translation>
    </message>
    <message>
        <source>Parameters</source>
        <translation>Параметры</translation>
    </message>
    <message>
        <source>Gradients</source>
        <translation>Градиенты</translation>
    </message>
    <message>
        <source>FP32 gradient accumulator</source>
        <translation>Накопитель градиентов FP32</translation>
    </message>
    <message>
        <source>FP32 master weights</source>
        <translation>Копия параметров FP32</translation>
    </message>
    <message>
        <source>Adam m (momentum)</source>
        <translation>Adam m (первый момент)</translation>
    </message>
    <message>
        <source>Adam v (variance)</source>
        <translation>Adam v (второй момент)</translation>
    </message>
    <message>
        <source>SGD momentum</source>
        <translation>Момент SGD</translation>
    </message>
    <message>
        <source>AdamW state (m, v, step)</source>
        <translation>Состояние AdamW (m, v, step)</translation>
    </message>
    <message>
        <source>DDP gradient buckets</source>
        <translation>Буферы градиентов DDP</translation>
    </message>
    <message>
        <source>parameter</source>
        <translation>параметр</translation>
    </message>
    <message>
        <source>gradient</source>
        <translation>градиент</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>состояние оптимизатора</translation>
    </message>
    <message>
        <source>Stage 0
plain DP</source>
        <translation>Стадия 0
обычный DP</translation>
    </message>
    <message>
        <source>Stage 1
optimizer sharded</source>
        <translation>Стадия 1
оптимизатор</translation>
    </message>
    <message>
        <source>Stage 2
+ gradients</source>
        <translation>Стадия 2
+ градиенты</translation>
    </message>
    <message>
        <source>Stage 3
+ parameters</source>
        <translation>Стадия 3
+ параметры</translation>
    </message>
    <message>
        <source>Stage {n}</source>
        <translation>Стадия {n}</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Cannot open the plan</source>
        <translation>Не удаётся открыть план</translation>
    </message>
    <message>
        <source>&amp;New</source>
        <translation>&amp;Новый</translation>
    </message>
    <message>
        <source>New plan</source>
        <translation>Новый план</translation>
    </message>
    <message>
        <source>&amp;Open…</source>
        <translation>&amp;Открыть…</translation>
    </message>
    <message>
        <source>Open a plan file (*.zerodesk.json)</source>
        <translation>Открыть файл плана (*.zerodesk.json)</translation>
    </message>
    <message>
        <source>&amp;Save</source>
        <translation>&amp;Сохранить</translation>
    </message>
    <message>
        <source>Save the plan</source>
        <translation>Сохранить план</translation>
    </message>
    <message>
        <source>Save &amp;As…</source>
        <translation>Сохранить &amp;как…</translation>
    </message>
    <message>
        <source>Save the plan under a new name</source>
        <translation>Сохранить план под новым именем</translation>
    </message>
    <message>
        <source>Export Chart as &amp;PNG…</source>
        <translation>Экспорт диаграммы в &amp;PNG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as PNG</source>
        <translation>Экспорт обеих диаграмм с подписями в PNG</translation>
    </message>
    <message>
        <source>Export Chart as S&amp;VG…</source>
        <translation>Экспорт диаграммы в S&amp;VG…</translation>
    </message>
    <message>
        <source>Export both charts with their captions as SVG</source>
        <translation>Экспорт обеих диаграмм с подписями в SVG</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Выход</translation>
    </message>
    <message>
        <source>Quit ZeroDesk</source>
        <translation>Выйти из ZeroDesk</translation>
    </message>
    <message>
        <source>&amp;Copy Table as Text</source>
        <translation>&amp;Копировать таблицу как текст</translation>
    </message>
    <message>
        <source>Copy the per-stage table as text</source>
        <translation>Копировать таблицу по стадиям как текст</translation>
    </message>
    <message>
        <source>Card &amp;Example</source>
        <translation>&amp;Пример из карточки</translation>
    </message>
    <message>
        <source>P = 2·10⁹, Nd = 4, paper's Adam: 32 / 14 / 11 / 8 GB</source>
        <translation>P = 2·10⁹, Nd = 4, Adam из статьи: 32 / 14 / 11 / 8 ГБ</translation>
    </message>
    <message>
        <source>&amp;Chart</source>
        <translation>&amp;Диаграмма</translation>
    </message>
    <message>
        <source>Show the chart tab</source>
        <translation>Показать вкладку с диаграммой</translation>
    </message>
    <message>
        <source>&amp;Table</source>
        <translation>&amp;Таблица</translation>
    </message>
    <message>
        <source>Show the table tab</source>
        <translation>Показать вкладку с таблицей</translation>
    </message>
    <message>
        <source>&amp;Find Claim…</source>
        <translation>&amp;Найти утверждение…</translation>
    </message>
    <message>
        <source>Filter the glossary's claims</source>
        <translation>Отфильтровать утверждения глоссария</translation>
    </message>
    <message>
        <source>Switch &amp;Units (GB / GiB)</source>
        <translation>Сменить &amp;единицы (ГБ / ГиБ)</translation>
    </message>
    <message>
        <source>Switch between GB (10⁹ B) and GiB (2³⁰ B)</source>
        <translation>Переключить ГБ (10⁹ байт) и ГиБ (2³⁰ байт)</translation>
    </message>
    <message>
        <source>&amp;About ZeroDesk</source>
        <translation>&amp;О программе ZeroDesk</translation>
    </message>
    <message>
        <source>Next Language</source>
        <translation>Следующий язык</translation>
    </message>
    <message>
        <source>Switch the interface language</source>
        <translation>Сменить язык интерфейса</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Файл</translation>
    </message>
    <message>
        <source>Open &amp;Recent</source>
        <translation>&amp;Недавние</translation>
    </message>
    <message>
        <source>&amp;Edit</source>
        <translation>&amp;Правка</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Вид</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>&amp;Язык</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Справка</translation>
    </message>
    <message>
        <source>Main toolbar</source>
        <translation>Основная панель</translation>
    </message>
    <message>
        <source>Model and cluster</source>
        <translation>Модель и кластер</translation>
    </message>
    <message>
        <source>Plan</source>
        <translation>План</translation>
    </message>
    <message>
        <source>Table</source>
        <translation>Таблица</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>Представления</translation>
    </message>
    <message>
        <source>Cannot compute this plan: {error}</source>
        <translation>Не удаётся рассчитать план: {error}</translation>
    </message>
    <message>
        <source>{n} field(s) need attention; the chart shows the last valid plan.</source>
        <translation>Полей с ошибками: {n}; диаграмма показывает последний корректный план.</translation>
    </message>
    <message>
        <source>Computed: model states per rank; not the peak (ZeRO §3.2).</source>
        <translation>Расчёт: состояния модели на участника; это не пик памяти (ZeRO §3.2).</translation>
    </message>
    <message>
        <source>Glossary: claim {id}</source>
        <translation>Глоссарий: утверждение {id}</translation>
    </message>
    <message>
        <source>Unsaved changes</source>
        <translation>Несохранённые изменения</translation>
    </message>
    <message>
        <source>The plan “{name}” has unsaved changes. Save them?</source>
        <translation>В плане «{name}» есть несохранённые изменения. Сохранить их?</translation>
    </message>
    <message>
        <source>Invalid fields</source>
        <translation>Ошибки в полях</translation>
    </message>
    <message>
        <source>Some fields are invalid. Save the last valid plan (what the chart shows)?</source>
        <translation>В некоторых полях ошибки. Сохранить последний корректный план (тот, что на диаграмме)?</translation>
    </message>
    <message>
        <source>Opened {path}</source>
        <translation>Открыт {path}</translation>
    </message>
    <message>
        <source>Cannot save the plan</source>
        <translation>Не удаётся сохранить план</translation>
    </message>
    <message>
        <source>Saved {path}</source>
        <translation>Сохранён {path}</translation>
    </message>
    <message>
        <source>Clear List</source>
        <translation>Очистить список</translation>
    </message>
    <message>
        <source>No recent plans</source>
        <translation>Недавних планов нет</translation>
    </message>
    <message>
        <source>Exported {path}</source>
        <translation>Экспортировано: {path}</translation>
    </message>
    <message>
        <source>Cannot export the chart</source>
        <translation>Не удаётся экспортировать диаграмму</translation>
    </message>
    <message>
        <source>Could not write {path}.</source>
        <translation>Не удалось записать {path}.</translation>
    </message>
    <message>
        <source>Table copied as text</source>
        <translation>Таблица скопирована как текст</translation>
    </message>
    <message>
        <source>About ZeroDesk</source>
        <translation>О программе ZeroDesk</translation>
    </message>
    <message>
        <source>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Plans the memory of ZeRO data-parallel training: per-rank model states by stage, from the ZeRO paper's accounting (§3.1, §5) or PyTorch's engines.&lt;/p&gt;&lt;p&gt;Figures are computed model states; the peak of a step adds activations, temporary buffers and fragmentation (§3.2).&lt;/p&gt;</source>
        <translation>&lt;b&gt;ZeroDesk {version}&lt;/b&gt;&lt;p&gt;Планирует память обучения с параллелизмом по данным ZeRO: состояния модели на участника по стадиям — по учёту статьи ZeRO (§3.1, §5) или движков PyTorch.&lt;/p&gt;&lt;p&gt;Значения — расчётные состояния модели; к пику шага добавляются активации, временные буферы и фрагментация (§3.2).&lt;/p&gt;</translation>
    </message>
</context>
<context>
    <name>PlanForm</name>
    <message>
        <source>Model preset</source>
        <translation>Готовая модель</translation>
    </message>
    <message>
        <source>Parameters P</source>
        <translation>Параметры P</translation>
    </message>
    <message>
        <source>Layers</source>
        <translation>Слои</translation>
    </message>
    <message>
        <source>Hidden</source>
        <translation>Ширина</translation>
    </message>
    <message>
        <source>Heads</source>
        <translation>Головы</translation>
    </message>
    <message>
        <source>KV heads</source>
        <translation>Головы KV</translation>
    </message>
    <message>
        <source>Head dim</source>
        <translation>Размер головы</translation>
    </message>
    <message>
        <source>FFN</source>
        <translation>FFN</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>Словарь</translation>
    </message>
    <message>
        <source>Positions</source>
        <translation>Позиции</translation>
    </message>
    <message>
        <source>MLP</source>
        <translation>MLP</translation>
    </message>
    <message>
        <source>Norm</source>
        <translation>Норма</translation>
    </message>
    <message>
        <source>Pos. enc.</source>
        <translation>Позиц. код.</translation>
    </message>
    <message>
        <source>Bias</source>
        <translation>Смещения</translation>
    </message>
    <message>
        <source>Training scheme</source>
        <translation>Схема обучения</translation>
    </message>
    <message>
        <source>Accounting profile</source>
        <translation>Профиль учёта</translation>
    </message>
    <message>
        <source>Sequence length</source>
        <translation>Длина последовательности</translation>
    </message>
    <message>
        <source>Micro-batch</source>
        <translation>Микробатч</translation>
    </message>
    <message>
        <source>GPU preset</source>
        <translation>Готовый GPU</translation>
    </message>
    <message>
        <source>GPU memory, {unit}</source>
        <translation>Память GPU, {unit}</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>Узлы</translation>
    </message>
    <message>
        <source>GPUs per node</source>
        <translation>GPU на узел</translation>
    </message>
    <message>
        <source>Data-parallel Nd</source>
        <translation>Параллелизм по данным Nd</translation>
    </message>
    <message>
        <source>Bandwidth, GB/s per rank</source>
        <translation>Пропускная способность, ГБ/с</translation>
    </message>
    <message>
        <source>Units</source>
        <translation>Единицы</translation>
    </message>
    <message>
        <source>Key/value heads (grouped-query attention)</source>
        <translation>Головы ключей и значений (grouped-query attention)</translation>
    </message>
    <message>
        <source>Head dimension</source>
        <translation>Размер головы внимания</translation>
    </message>
    <message>
        <source>MLP inner width (FFN)</source>
        <translation>Внутренняя ширина MLP (FFN)</translation>
    </message>
    <message>
        <source>Learned position table size</source>
        <translation>Размер обучаемой таблицы позиций</translation>
    </message>
    <message>
        <source>Position encoding</source>
        <translation>Позиционное кодирование</translation>
    </message>
    <message>
        <source>Hidden size (model width)</source>
        <translation>Скрытый размер (ширина модели)</translation>
    </message>
    <message>
        <source>Parameter count: 2e9, 7B, 350M, 1.5T or plain digits</source>
        <translation>Число параметров: 2e9, 7B, 350M, 1.5T или просто цифры</translation>
    </message>
    <message>
        <source>Empty: same as heads</source>
        <translation>Пусто: столько же, сколько голов</translation>
    </message>
    <message>
        <source>Empty: hidden / heads</source>
        <translation>Пусто: ширина / число голов</translation>
    </message>
    <message>
        <source>Size of the learned position table (learned positions only)</source>
        <translation>Размер обучаемой таблицы позиций (только для обучаемых позиций)</translation>
    </message>
    <message>
        <source>Empty: nodes × GPUs per node</source>
        <translation>Пусто: узлы × GPU на узел</translation>
    </message>
    <message>
        <source>Memory of one GPU; empty: no GPU line</source>
        <translation>Память одного GPU; пусто — без линии GPU</translation>
    </message>
    <message>
        <source>Per-rank link bandwidth used for the communication time (1 GB = 10⁹ B)</source>
        <translation>Пропускная способность канала на участника для времени обменов (1 ГБ = 10⁹ байт)</translation>
    </message>
    <message>
        <source>Tokens per sequence (activations estimate)</source>
        <translation>Токенов в последовательности (для оценки активаций)</translation>
    </message>
    <message>
        <source>Sequences per rank per step (activations estimate)</source>
        <translation>Последовательностей на участника за шаг (для оценки активаций)</translation>
    </message>
    <message>
        <source>auto</source>
        <translation>авто</translation>
    </message>
    <message>
        <source>none</source>
        <translation>нет</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>Модель</translation>
    </message>
    <message>
        <source>Training</source>
        <translation>Обучение</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>Кластер</translation>
    </message>
    <message>
        <source>Given by</source>
        <translation>Задана через</translation>
    </message>
    <message>
        <source>Parameter count</source>
        <translation>Число параметров</translation>
    </message>
    <message>
        <source>Model given by parameter count</source>
        <translation>Модель задана числом параметров</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>Архитектуру</translation>
    </message>
    <message>
        <source>Model given by architecture</source>
        <translation>Модель задана архитектурой</translation>
    </message>
    <message>
        <source>Tied input/output embeddings</source>
        <translation>Общие входные и выходные эмбеддинги</translation>
    </message>
    <message>
        <source>Card example: P = 2·10⁹, Nd = 4</source>
        <translation>Пример из карточки: P = 2·10⁹, Nd = 4</translation>
    </message>
    <message>
        <source>The source card's worked example: 32 / 14 / 11 / 8 GB per rank (Ctrl+K)</source>
        <translation>Учебный расчёт из карточки: 32 / 14 / 11 / 8 ГБ на участника (Ctrl+K)</translation>
    </message>
    <message>
        <source>Load the card example</source>
        <translation>Загрузить пример из карточки</translation>
    </message>
    <message>
        <source>Custom</source>
        <translation>Своя</translation>
    </message>
    <message>
        <source>Custom / none</source>
        <translation>Свой / не задан</translation>
    </message>
    <message>
        <source>Presets unavailable: {error}</source>
        <translation>Готовые наборы недоступны: {error}</translation>
    </message>
    <message>
        <source>= heads</source>
        <translation>= головы</translation>
    </message>
    <message>
        <source>= {n} parameters, exact from the architecture</source>
        <translation>= {n} параметров, точно по архитектуре</translation>
    </message>
    <message>
        <source>P = {n} ({short})</source>
        <translation>P = {n} ({short})</translation>
    </message>
    <message>
        <source>= {n} parameters</source>
        <translation>= {n} параметров</translation>
    </message>
    <message>
        <source>Nd = {nd} ({nodes} × {gpn} GPUs)</source>
        <translation>Nd = {nd} ({nodes} × {gpn} GPU)</translation>
    </message>
</context>
<context>
    <name>Provenance</name>
    <message>
        <source>Computed (closed form), {profile}: {source}; scheme: {scheme}</source>
        <translation>Расчёт по формулам, {profile}: {source}; схема: {scheme}</translation>
    </message>
    <message>
        <source>Model states only. Fitting them in GPU memory is not the peak: activations, temporary buffers and fragmentation come on top (ZeRO §3.2). Measure the full step.</source>
        <translation>Только состояния модели. То, что они помещаются в память GPU, не означает, что поместится пик: сверху добавляются активации, временные буферы и фрагментация (ZeRO §3.2). Измерьте полный шаг.</translation>
    </message>
</context>
<context>
    <name>StageChart</name>
    <message>
        <source>GPU memory {v}</source>
        <translation>Память GPU {v}</translation>
    </message>
    <message>
        <source>Per-rank model states, {unit}</source>
        <translation>Состояния модели на участника, {unit}</translation>
    </message>
    <message>
        <source>Formula: {f} with P = {p}, Nd = {nd}</source>
        <translation>Формула: {f} при P = {p}, Nd = {nd}</translation>
    </message>
    <message>
        <source>Stage total: {total} = {formula}</source>
        <translation>Всего на стадии: {total} = {formula}</translation>
    </message>
    <message>
        <source>Computed, {profile}. Click for the claim it rests on.</source>
        <translation>Расчёт, {profile}. Щёлкните, чтобы открыть утверждение, на котором он основан.</translation>
    </message>
    <message>
        <source>Peak of the step: {v}</source>
        <translation>Пик шага: {v}</translation>
    </message>
    <message>
        <source>Model states: {v}</source>
        <translation>Состояния модели: {v}</translation>
    </message>
    <message>
        <source>States vs computed {c}: {d:+.1f}%</source>
        <translation>Состояния против расчёта {c}: {d:+.1f}%</translation>
    </message>
    <message>
        <source>beside each bar: ▲ peak, ◆ model states, % = states vs computed</source>
        <translation>рядом со столбцами: ▲ пик, ◆ состояния модели, % — состояния против расчёта</translation>
    </message>
</context>
<context>
    <name>TablePanel</name>
    <message>
        <source>Copy table as text</source>
        <translation>Копировать таблицу как текст</translation>
    </message>
    <message>
        <source>Copy the table, its caption and notes (Ctrl+Shift+C)</source>
        <translation>Копировать таблицу с подписью и примечаниями (Ctrl+Shift+C)</translation>
    </message>
    <message>
        <source>Per-stage memory table</source>
        <translation>Таблица памяти по стадиям</translation>
    </message>
    <message>
        <source>Per rank</source>
        <translation>На участника</translation>
    </message>
    <message>
        <source>Total model states</source>
        <translation>Всего состояний модели</translation>
    </message>
    <message>
        <source>Formula (bytes)</source>
        <translation>Формула (байты)</translation>
    </message>
    <message>
        <source>Ranks: smallest – largest</source>
        <translation>Участники: наименьший – наибольший</translation>
    </message>
    <message>
        <source>fits: {pct}% of {gpu}</source>
        <translation>помещается: {pct}% от {gpu}</translation>
    </message>
    <message>
        <source>over by {over} ({pct}%)</source>
        <translation>превышение на {over} ({pct}%)</translation>
    </message>
    <message>
        <source>States vs GPU memory</source>
        <translation>Состояния и память GPU</translation>
    </message>
    <message>
        <source>no GPU memory given</source>
        <translation>память GPU не задана</translation>
    </message>
    <message>
        <source>Communication per step</source>
        <translation>Обмен за шаг</translation>
    </message>
    <message>
        <source>Communication time at {bw} GB/s</source>
        <translation>Время обмена при {bw} ГБ/с</translation>
    </message>
    <message>
        <source>Per-rank model-state memory, largest rank</source>
        <translation>Память состояний модели на участника, наибольший участник</translation>
    </message>
    <message>
        <source>P = {p} parameters · Nd = {nd} · figures in {unit} ({note})</source>
        <translation>P = {p} параметров · Nd = {nd} · значения в {unit} ({note})</translation>
    </message>
    <message>
        <source>On top, estimated activations for sequence {seq} × micro-batch {mb}: {act} per rank (16-bit, fused attention, no recomputation; an estimate, not a measurement).</source>
        <translation>Сверху — оценка активаций для последовательности {seq} × микробатч {mb}: {act} на участника (16 бит, слитное внимание, без пересчёта; оценка, а не замер).</translation>
    </message>
    <message>
        <source>On top: activations (give the architecture to estimate them), temporary buffers, fragmentation.</source>
        <translation>Сверху: активации (задайте архитектуру, чтобы их оценить), временные буферы, фрагментация.</translation>
    </message>
    <message>
        <source>Note: {note}.</source>
        <translation>Примечание: {note}.</translation>
    </message>
</context>
<context>
    <name>Units</name>
    <message>
        <source>GB</source>
        <translation>ГБ</translation>
    </message>
    <message>
        <source>GiB</source>
        <translation>ГиБ</translation>
    </message>
    <message>
        <source>1 GB = 10⁹ B</source>
        <translation>1 ГБ = 10⁹ байт</translation>
    </message>
    <message>
        <source>1 GiB = 2³⁰ B</source>
        <translation>1 ГиБ = 2³⁰ байт</translation>
    </message>
    <message>
        <source>{n} B</source>
        <translation>{n} байт</translation>
    </message>
    <message>
        <source>{v} ms</source>
        <translation>{v} мс</translation>
    </message>
    <message>
        <source>{v} s</source>
        <translation>{v} с</translation>
    </message>
</context>
</TS>