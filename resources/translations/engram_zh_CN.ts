<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name></name>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="98"/>
        <source>Download progress of {name}</source>
        <translation>{name} 的下载进度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="99"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="100"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="101"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="102"/>
        <source>Use as small</source>
        <translation>用作小模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="103"/>
        <source>Use as large</source>
        <translation>用作大模型</translation>
    </message>
</context>
<context>
    <name>ChatView</name>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="109"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
</context>
<context>
    <name>Composer</name>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="23"/>
        <source>Message Engram… (Enter to send, Shift+Enter for a new line)</source>
        <translation>给 Engram 发消息…（Enter 发送，Shift+Enter 换行）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/composer.py" line="25"/>
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
    <name>DownloadWorker</name>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="94"/>
        <source>{name} is a starter model that Engram falls back to.</source>
        <translation>{name} 是 Engram 的后备入门模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="97"/>
        <source>Keep it installed.</source>
        <translation>请保留它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="101"/>
        <source>{name} is being downloaded.</source>
        <translation>{name} 正在下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="102"/>
        <source>Cancel the download first.</source>
        <translation>请先取消下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="109"/>
        <source>Could not delete {path} ({error}).</source>
        <translation>无法删除 {path}（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/download_worker.py" line="112"/>
        <source>Close programs that use the file and try again.</source>
        <translation>请关闭正在使用该文件的程序后重试。</translation>
    </message>
</context>
<context>
    <name>Labels</name>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="8"/>
        <source>Fact</source>
        <translation>事实</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="9"/>
        <source>Preference</source>
        <translation>偏好</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="10"/>
        <source>Profile</source>
        <translation>个人资料</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="11"/>
        <source>Lesson</source>
        <translation>经验</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="12"/>
        <source>Summary</source>
        <translation>摘要</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="13"/>
        <source>Plan</source>
        <translation>计划</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="14"/>
        <source>Active</source>
        <translation>有效</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="15"/>
        <source>Superseded</source>
        <translation>已被取代</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="16"/>
        <source>Archived</source>
        <translation>已归档</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="17"/>
        <source>Local model</source>
        <translation>本地模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="18"/>
        <source>Cloud model</source>
        <translation>云端模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="19"/>
        <source>You</source>
        <translation>你</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="20"/>
        <source>not configured</source>
        <translation>未配置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="21"/>
        <source>not loaded</source>
        <translation>未加载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/labels.py" line="22"/>
        <source>loaded</source>
        <translation>已加载</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="93"/>
        <source>Send</source>
        <translation>发送</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="95"/>
        <source>Send message</source>
        <translation>发送消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="96"/>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="97"/>
        <source>Stop the answer</source>
        <translation>停止回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="98"/>
        <source>Stop the answer (Esc)</source>
        <translation>停止回答（Esc）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="105"/>
        <source>Ask large model</source>
        <translation>问大模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="106"/>
        <source>Ask the large model</source>
        <translation>向大模型提问</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="108"/>
        <source>Answer this message with the large model, slower but stronger (Ctrl+Enter)</source>
        <translation>用大模型回答这条消息，较慢但更强（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="110"/>
        <source>Remember</source>
        <translation>记住</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="111"/>
        <source>Learn from this chat now</source>
        <translation>立即从这个对话中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="113"/>
        <source>Learn from this chat now (or start a message with “remember this:”)</source>
        <translation>立即从这个对话中学习（或在消息开头写“记住：”）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="136"/>
        <source>Starting…</source>
        <translation>正在启动…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="139"/>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="140"/>
        <source>Retry learning</source>
        <translation>重试学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="166"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="167"/>
        <source>Open the settings</source>
        <translation>打开设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="168"/>
        <source>Models, memory, cloud, appearance (Ctrl+,)</source>
        <translation>模型、记忆、云端、外观（Ctrl+,）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="171"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="172"/>
        <source>Open the model manager</source>
        <translation>打开模型管理器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="173"/>
        <source>Download, import and choose models</source>
        <translation>下载、导入和选择模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="178"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="179"/>
        <source>Open the memory browser</source>
        <translation>打开记忆浏览器</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="180"/>
        <source>See and edit what Engram remembers (Ctrl+M)</source>
        <translation>查看和编辑 Engram 记住的内容（Ctrl+M）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="283"/>
        <source>Learning… {percent}%</source>
        <translation>正在学习… {percent}%</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="285"/>
        <source>Learning waits for the answer</source>
        <translation>学习正在等待回答结束</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="287"/>
        <source>Learning paused: {error}</source>
        <translation>学习已暂停：{error}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="289"/>
        <source>{count} to learn</source>
        <translation>{count} 项待学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="291"/>
        <source>Memory up to date</source>
        <translation>记忆已是最新</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="294"/>
        <source>Large model: {state}</source>
        <translation>大模型：{state}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="358"/>
        <source>Loading model…</source>
        <translation>正在加载模型…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="363"/>
        <source>Answering without memory: {why}</source>
        <translation>当前没有记忆可用：{why}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="367"/>
        <source>Model: {name}</source>
        <translation>模型：{name}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="374"/>
        <source>No model loaded</source>
        <translation>未加载模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="389"/>
        <location filename="../../desktop/engram/ui/main_window.py" line="485"/>
        <source>Answered by the large model</source>
        <translation>由大模型回答</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="391"/>
        <source>Remembered: {text}</source>
        <translation>已记住：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="400"/>
        <source>The message is too long for the model&apos;s context; the last {count} characters were left out of this answer (the whole message is saved).</source>
        <translation>消息太长，超出了模型的上下文；本次回答未包含最后 {count} 个字符（完整消息已保存）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="431"/>
        <source>Only the latest message can be changed.</source>
        <translation>只能修改最新的一条消息。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="436"/>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/main_window.py" line="436"/>
        <source>Message:</source>
        <translation>消息：</translation>
    </message>
</context>
<context>
    <name>MemoryBrowser</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="69"/>
        <source>Engram — Memories</source>
        <translation>Engram — 记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="87"/>
        <source>Search memories (words or meaning)…</source>
        <translation>搜索记忆（关键词或意思）…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="88"/>
        <source>Search memories</source>
        <translation>搜索记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="91"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="92"/>
        <source>All kinds</source>
        <translation>所有类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="96"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="99"/>
        <source>Any status</source>
        <translation>任意状态</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="107"/>
        <source>Memories</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="124"/>
        <source>Memory text</source>
        <translation>记忆内容</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="128"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="140"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="131"/>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="132"/>
        <source>Pin</source>
        <translation>置顶</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="134"/>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="135"/>
        <source>Restore</source>
        <translation>恢复</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="144"/>
        <source>Where this memory came from</source>
        <translation>这条记忆的来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="150"/>
        <source>Learned from (double-click to open the chat):</source>
        <translation>学自（双击打开对话）：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="162"/>
        <source>Memory actions</source>
        <translation>记忆操作</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="165"/>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="166"/>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="167"/>
        <source>Pause memory</source>
        <translation>暂停记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="170"/>
        <source>While paused, Engram learns no new memories</source>
        <translation>暂停期间，Engram 不会学习新的记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="171"/>
        <source>Forget everything…</source>
        <translation>全部遗忘…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="233"/>
        <source>{count} memories</source>
        <translation>{count} 条记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="260"/>
        <source>Select a memory to see and change it.</source>
        <translation>选择一条记忆以查看和修改。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="270"/>
        <source>{kind} · {status} · from {origin} · created {day} · used {uses}×</source>
        <translation>{kind} · {status} · 来自{origin} · 创建于 {day} · 已使用 {uses} 次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="290"/>
        <source>(added by hand, or its chat was deleted)</source>
        <translation>（手动添加，或其对话已被删除）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="313"/>
        <source>Delete memory</source>
        <translation>删除记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="314"/>
        <source>Delete this memory for good? Its text is erased from the database file.</source>
        <translation>永久删除这条记忆？它的文字会从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="328"/>
        <source>Memory paused: nothing new will be learned.</source>
        <translation>记忆已暂停：不会学习新的内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="330"/>
        <source>Memory resumed.</source>
        <translation>记忆已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="338"/>
        <source>Export memories</source>
        <translation>导出记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="340"/>
        <source>Engram export (*.jsonl);;Readable list (*.md)</source>
        <translation>Engram 导出文件 (*.jsonl);;可读列表 (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="347"/>
        <source>Import memories</source>
        <translation>导入记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="347"/>
        <source>Engram export (*.jsonl)</source>
        <translation>Engram 导出文件 (*.jsonl)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="359"/>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="376"/>
        <source>Forget everything</source>
        <translation>全部遗忘</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="362"/>
        <source>This erases all {memories} memories Engram has learned, for good: their text is removed from the database file. It cannot be undone.</source>
        <translation>这将永久抹去 Engram 学到的全部 {memories} 条记忆：它们的文字会从数据库文件中删除。此操作无法撤销。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="368"/>
        <source>Also erase all {chats} chats ({messages} messages)</source>
        <translation>同时抹去全部 {chats} 个对话（{messages} 条消息）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_browser.py" line="404"/>
        <source>Engram</source>
        <translation>Engram</translation>
    </message>
</context>
<context>
    <name>MemoryChips</name>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="34"/>
        <source>Recalled:</source>
        <translation>回忆：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="47"/>
        <source>earlier message</source>
        <translation>以前的消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="48"/>
        <source>used in this answer</source>
        <translation>本次回答用到了</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="48"/>
        <source>given, not used</source>
        <translation>提供了，但未使用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="50"/>
        <source>Memory: {text}</source>
        <translation>记忆：{text}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="55"/>
        <source>Open in memory browser</source>
        <translation>在记忆浏览器中打开</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="57"/>
        <source>This is wrong</source>
        <translation>这条不对</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chips.py" line="65"/>
        <source>Marked wrong</source>
        <translation>已标记为错误</translation>
    </message>
</context>
<context>
    <name>MemoryTableModel</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="31"/>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="32"/>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="33"/>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="34"/>
        <source>Origin</source>
        <translation>来源</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="35"/>
        <source>Updated</source>
        <translation>更新时间</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="36"/>
        <source>Uses</source>
        <translation>使用次数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_model.py" line="37"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
</context>
<context>
    <name>MemoryWorker</name>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="76"/>
        <source>Saved.</source>
        <translation>已保存。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="84"/>
        <source>Pinned.</source>
        <translation>已置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="84"/>
        <source>Unpinned.</source>
        <translation>已取消置顶。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="92"/>
        <source>Deleted; its text is gone from the database file.</source>
        <translation>已删除；它的文字已从数据库文件中抹去。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="100"/>
        <source>Restored.</source>
        <translation>已恢复。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="112"/>
        <source>Exported to {path} ({count} entries).</source>
        <translation>已导出到 {path}（{count} 条）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="120"/>
        <source>Imported {count} memories.</source>
        <translation>已导入 {count} 条记忆。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/memory_worker.py" line="128"/>
        <source>Forgot {count} memories.</source>
        <translation>已遗忘 {count} 条记忆。</translation>
    </message>
</context>
<context>
    <name>MessageBubble</name>
    <message numerus="yes">
        <location filename="../../desktop/engram/ui/chat_view.py" line="65"/>
        <source>(%n more characters not shown; the whole message is saved)</source>
        <translation>
            <numerusform>（还有 %n 个字符未显示；完整消息已保存）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="68"/>
        <source>Copy code</source>
        <translation>复制代码</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="83"/>
        <source>Copy message</source>
        <translation>复制消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="85"/>
        <source>Regenerate</source>
        <translation>重新生成</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="87"/>
        <source>Show prompt…</source>
        <translation>查看提示词…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/chat_view.py" line="89"/>
        <source>Edit and resend</source>
        <translation>编辑并重新发送</translation>
    </message>
</context>
<context>
    <name>ModelManager</name>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="40"/>
        <source>fits</source>
        <translation>适合</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="41"/>
        <source>tight</source>
        <translation>勉强</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="42"/>
        <source>does not fit</source>
        <translation>不适合</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="45"/>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="46"/>
        <source>Roles</source>
        <translation>角色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="47"/>
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="48"/>
        <source>Languages</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="49"/>
        <source>Licence</source>
        <translation>许可证</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="50"/>
        <source>Fit</source>
        <translation>适配</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="51"/>
        <source>On disk</source>
        <translation>磁盘占用</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="52"/>
        <source>Progress</source>
        <translation>进度</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="53"/>
        <source>Actions</source>
        <translation>操作</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="129"/>
        <source>Resume</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="131"/>
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="150"/>
        <source>Engram — Models</source>
        <translation>Engram — 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="171"/>
        <source>Download and use this pair</source>
        <translation>下载并使用这组模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="186"/>
        <source>Model catalogue</source>
        <translation>模型目录</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="196"/>
        <source>Import GGUF…</source>
        <translation>导入 GGUF…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="197"/>
        <source>Or drop a .gguf file onto this window</source>
        <translation>也可以把 .gguf 文件拖到此窗口</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="234"/>
        <source>This machine: {machine}</source>
        <translation>本机：{machine}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="248"/>
        <source>The catalogue recommends no models.</source>
        <translation>模型目录中没有推荐的模型。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="253"/>
        <source>Recommended for this machine: {small} answers, {large} learns, {embedding} finds memories. {reason}</source>
        <translation>本机推荐：{small} 负责回答，{large} 负责学习，{embedding} 负责查找记忆。{reason}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="269"/>
        <source>installed, {size}</source>
        <translation>已安装，{size}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="271"/>
        <source>partly downloaded, {size}</source>
        <translation>已下载一部分，{size}</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="273"/>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="298"/>
        <source>waiting…</source>
        <translation>等待中…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="336"/>
        <source>Could not save the settings ({error}).</source>
        <translation>无法保存设置（{error}）。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="337"/>
        <source>Check that the data folder is writable.</source>
        <translation>请检查数据文件夹是否可写。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="340"/>
        <source>Saved; the new models load on the next start.</source>
        <translation>已保存；新模型将在下次启动时加载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="349"/>
        <source>Delete model</source>
        <translation>删除模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="350"/>
        <source>Delete {name} ({size}) from this computer?</source>
        <translation>要从这台电脑上删除 {name}（{size}）吗？</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="360"/>
        <source>Importing {path}…</source>
        <translation>正在导入 {path}…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="365"/>
        <source>Import a GGUF model</source>
        <translation>导入 GGUF 模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="365"/>
        <source>GGUF models (*.gguf)</source>
        <translation>GGUF 模型 (*.gguf)</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="382"/>
        <source>{seconds:.0f} s left</source>
        <translation>剩余 {seconds:.0f} 秒</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="391"/>
        <source>Downloaded {id}.</source>
        <translation>已下载 {id}。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="395"/>
        <source>Cancelled {id}; Resume continues where it stopped.</source>
        <translation>已取消 {id}；点击“继续下载”可从中断处接着下载。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="405"/>
        <source>Imported {id}; choose it with Use as small or Use as large.</source>
        <translation>已导入 {id}；可通过“用作小模型”或“用作大模型”选用它。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/model_manager.py" line="413"/>
        <source>Deleted {id}.</source>
        <translation>已删除 {id}。</translation>
    </message>
</context>
<context>
    <name>PromptDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="16"/>
        <source>Prompt of this answer</source>
        <translation>这个回答的提示词</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="20"/>
        <source>System part</source>
        <translation>系统部分</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="22"/>
        <source>Conversation</source>
        <translation>对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="26"/>
        <source>Memory block</source>
        <translation>记忆块</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="27"/>
        <source>Message</source>
        <translation>消息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="30"/>
        <source>=== {title} ({tokens} tokens) ===</source>
        <translation>=== {title}（{tokens} 个词元）===</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/prompt_dialog.py" line="37"/>
        <source>Prompt</source>
        <translation>提示词</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="49"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="53"/>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="54"/>
        <source>Memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="55"/>
        <source>Cloud distiller</source>
        <translation>云端提炼</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="56"/>
        <source>Appearance &amp;&amp; data</source>
        <translation>外观与数据</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="87"/>
        <source>Automatic</source>
        <translation>自动</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="91"/>
        <source>Small model (answers)</source>
        <translation>小模型（回答）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="92"/>
        <source>Large model (learning)</source>
        <translation>大模型（学习）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="93"/>
        <source>Embedding model</source>
        <translation>嵌入模型</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="94"/>
        <source>CPU threads</source>
        <translation>CPU 线程数</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="95"/>
        <source>Context size (tokens)</source>
        <translation>上下文长度（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="96"/>
        <source>Answer length (tokens)</source>
        <translation>回答长度（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="97"/>
        <source>Memory budget (tokens)</source>
        <translation>记忆预算（词元）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="104"/>
        <source>installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="104"/>
        <source>not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="107"/>
        <source>{id} (not in the catalogue)</source>
        <translation>{id}（不在模型目录中）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="117"/>
        <source>Pause memory (learn nothing new)</source>
        <translation>暂停记忆（不再学习新内容）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="119"/>
        <source>Learn every N turns</source>
        <translation>每 N 轮对话学习一次</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="120"/>
        <source>Idle seconds before learning</source>
        <translation>空闲多少秒后开始学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="121"/>
        <source>Unload large model after idle (seconds)</source>
        <translation>大模型空闲多久后卸载（秒）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="128"/>
        <source>Use a cloud model to learn from conversations</source>
        <translation>使用云端模型从对话中学习</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="131"/>
        <source>⚠ Conversation text may leave this machine while the cloud distiller is on.</source>
        <translation>⚠ 开启云端提炼后，对话文本可能会离开本机。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="142"/>
        <source>Leave empty to keep the current key</source>
        <translation>留空则保留当前密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="143"/>
        <source>Redact personal data before sending</source>
        <translation>发送前隐去个人信息</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="147"/>
        <source>Base URL</source>
        <translation>接口地址</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="148"/>
        <source>Model name</source>
        <translation>模型名称</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="149"/>
        <source>API key</source>
        <translation>API 密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="151"/>
        <source>Keep the key for this session only</source>
        <translation>仅在本次运行期间保留密钥</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="166"/>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="172"/>
        <source>System</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="173"/>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="174"/>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="181"/>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="187"/>
        <source>Empty: the official Hugging Face hub</source>
        <translation>留空：使用 Hugging Face 官方站点</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="188"/>
        <source>Disable Xet transfer (plain HTTP downloads)</source>
        <translation>停用 Xet 传输（使用普通 HTTP 下载）</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="190"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="191"/>
        <source>Applies after restart.</source>
        <translation>重启后生效。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="192"/>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="193"/>
        <source>Data folder</source>
        <translation>数据文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="194"/>
        <source>Download mirror</source>
        <translation>下载镜像</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="225"/>
        <source>The base URL “{url}” is not an http:// or https:// address.</source>
        <translation>接口地址“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="228"/>
        <source>Enter the API&apos;s address, for example https://api.example.com/v1.</source>
        <translation>请输入接口地址，例如 https://api.example.com/v1。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="233"/>
        <source>The cloud distiller needs a base URL and a model name.</source>
        <translation>云端提炼需要接口地址和模型名称。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="234"/>
        <source>Fill both in, or turn the cloud distiller off.</source>
        <translation>请两项都填写，或关闭云端提炼。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="240"/>
        <source>The download mirror “{url}” is not an http:// or https:// address.</source>
        <translation>下载镜像“{url}”不是 http:// 或 https:// 地址。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="242"/>
        <source>Enter a mirror such as https://hf-mirror.com, or leave it empty.</source>
        <translation>请输入镜像地址（例如 https://hf-mirror.com），或留空。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="274"/>
        <source>The API key cannot be stored securely: {why}. Install and unlock a keyring service, or keep the key in memory for this session only; Engram never saves it to a file.</source>
        <translation>无法安全保存 API 密钥：{why}。请安装并解锁密钥环服务，或仅在本次运行期间将密钥保留在内存中；Engram 从不把密钥写入文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="301"/>
        <source>Tick “Keep the key for this session only”, or install and unlock a keyring service and try again.</source>
        <translation>请勾选“仅在本次运行期间保留密钥”，或安装并解锁密钥环服务后重试。</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/settings_dialog.py" line="318"/>
        <source>Could not save the settings ({error}). Nothing was changed.</source>
        <translation>无法保存设置（{error}），未做任何更改。</translation>
    </message>
</context>
<context>
    <name>Sidebar</name>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="37"/>
        <source>New chat</source>
        <translation>新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="39"/>
        <source>Start a new chat</source>
        <translation>开始新对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="41"/>
        <location filename="../../desktop/engram/ui/sidebar.py" line="42"/>
        <source>Search chats</source>
        <translation>搜索对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="45"/>
        <source>Chats</source>
        <translation>对话列表</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="64"/>
        <source>Untitled chat</source>
        <translation>未命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="82"/>
        <source>Rename…</source>
        <translation>重命名…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="83"/>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="87"/>
        <source>Rename chat</source>
        <translation>重命名对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="87"/>
        <source>Title:</source>
        <translation>标题：</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="94"/>
        <source>Delete chat</source>
        <translation>删除对话</translation>
    </message>
    <message>
        <location filename="../../desktop/engram/ui/sidebar.py" line="96"/>
        <source>Delete “{title}” and all its messages? Memories learned from it are kept (you can erase them in the memory browser).</source>
        <translation>删除“{title}”及其所有消息？从中学到的记忆会保留（可以在记忆浏览器中删除）。</translation>
    </message>
</context>
</TS>
